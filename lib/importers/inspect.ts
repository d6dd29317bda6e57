// An Inspect AI log (lib/testing/fixtures/inspect/README.md; `.json` or `.eval`) → one run per sample
// and epoch. Inspect says nothing about what its tools change, so every tool call becomes an effect
// of an `unclassified` tool (the evaluation's policy names none) until the user classifies it.
import { z } from "zod";
import { modelCallsOfSample } from "./inspect-model-calls";
import { DEFAULT_SCORE_THRESHOLD } from "../evaluations/vocabulary";
import { runRecordSchema, type EffectRecord, type RunRecord } from "../evaluations/run-record-schema";
import type { HarnessMetric } from "../evaluations/harness-metrics";
import { SkippedLog, firstIssue, type ImportedLog, type LogFormat } from "./imported-log";
import { callOutcome, callsOfSample, statusAtScoring, transcriptOf } from "./inspect-calls";
import {
  INSPECT_LOG_VERSIONS,
  inspectHeaderSchema,
  inspectSampleSchema,
  iso,
  sampleKey,
  sampleKeySchema,
  scoreEventSchema,
  type eventSchema,
  type InspectHeader,
  type InspectSample,
} from "./inspect-log-schemas";
import { describe, labellingScore, scoreAsNumber, unreadableLabel, unreadableScoreReason } from "./inspect-scores";

/** At most this many missing samples are named (the count says how many there are). */
const MISSING_NAMED = 20;

export interface InspectOptions {
  /** A numeric score at or above it is a success (DEFAULT_SCORE_THRESHOLD when not given). */
  threshold?: number;
  /** The scorer whose value labels the runs (a key of the samples' `scores`); the first scorer when not given. */
  scorer?: string;
}

/** A log without the scorer the import named: refused whole (no run of it is stored), naming the field. */
export class UnknownScorer extends SkippedLog {
  readonly field = "scorer";
}

const limitSchema = z.looseObject({ type: z.string().min(1), limit: z.number().nullish() });

/**
 * The budget the sample stopped on, in words: its `limit` (an object in the sample, a bare type in a
 * summary), else a `sample_limit` event. undefined when it ran to its end.
 */
function limitReached(sample: InspectSample, events: readonly z.infer<typeof eventSchema>[]): string | undefined {
  const fromSample = limitSchema.safeParse(typeof sample.limit === "string" ? { type: sample.limit } : sample.limit);
  const fromEvent = limitSchema.safeParse(events.findLast((e) => e.event === "sample_limit"));
  const limit = fromSample.success ? fromSample.data : fromEvent.success ? fromEvent.data : undefined;
  if (!limit) return undefined;
  const value = typeof limit.limit === "number" ? ` (${limit.limit})` : "";
  return `Inspect stopped the sample at its ${limit.type} limit${value}`;
}

type SampleOutcome =
  | {
      run: RunRecord;
      mapping: string | null;
      scoredFrom: "event" | "log" | "unscored";
      /** The labelling scorer recorded a value that is no label (a dict, a list, text): which scorer. */
      unreadableScorer?: string;
    }
  | { leftOut: string };

function runOfSample(header: InspectHeader, sample: InspectSample, threshold: number, named: string | undefined): SampleOutcome {
  const timeline = sample.events ?? sample.transcript?.events;
  const events = timeline ?? [];
  const scoreEvents = events
    .filter((e) => e.event === "score")
    .flatMap((e) => {
      const parsed = scoreEventSchema.safeParse(e);
      return parsed.success && !parsed.data.intermediate ? [parsed.data] : [];
    });
  const lastScoreEvent = scoreEvents.at(-1);
  const labelling = labellingScore(sample, scoreEvents, named);
  const value = "value" in labelling ? labelling.value : undefined;
  const score = "value" in labelling ? scoreAsNumber(value) : null;
  // A sample without a readable score is stored unscored, with the reason, rather than left out.
  const unscoredReason =
    "unscoredReason" in labelling
      ? labelling.unscoredReason
      : score === null
        ? unreadableScoreReason(labelling.scorer, value, sample)
        : undefined;

  const timed = events.flatMap((e) => (e.timestamp ? [iso(e.timestamp)] : []));
  const logStart = header.stats?.started_at ?? header.eval.created;
  const startedAt = timed[0] ?? (logStart ? iso(logStart) : undefined);
  const scoreTime = lastScoreEvent?.timestamp;
  const logEnd = header.stats?.completed_at;
  const scoredAt = unscoredReason ? undefined : scoreTime ? iso(scoreTime) : (timed.at(-1) ?? (logEnd ? iso(logEnd) : startedAt));
  if (!startedAt) return { leftOut: "the log records no time for this sample (no events, no stats.started_at)" };

  const limit = limitReached(sample, events);
  const calls = callsOfSample(timeline ?? undefined, sample.messages ?? [], sample.error?.message ?? undefined);
  const ids = calls.map((c) => c.callId);
  const effects: EffectRecord[] = calls.map((call, position) => {
    const uniqueId = call.callId && ids.indexOf(call.callId) === ids.lastIndexOf(call.callId);
    return {
      effectId: uniqueId ? call.callId! : `call-${position}`,
      tool: call.tool,
      ...(call.callId && { callId: call.callId }),
      tracePosition: position,
      ...(call.arguments && { arguments: call.arguments }),
      requestedAt: call.requestedAt ?? startedAt,
      ...(call.completedAt && { acknowledgedAt: call.completedAt }),
      statusAtScoring: statusAtScoring(call, scoredAt),
      ...(call.error && { notes: `the call returned an error: ${call.error}`.slice(0, 4_000) }),
      ...(call.notExecuted &&
        call.error === undefined && {
          notes: "the sample ended with the model turn that asked for this call (a limit or an error): Inspect never executed it",
        }),
    };
  });
  const taskRun = header.eval.task_id ?? header.eval.run_id ?? header.eval.task;
  const messages = transcriptOf(sample.messages ?? []);
  const modelCalls = modelCallsOfSample(events, sample.messages ?? [], messages);
  const run = runRecordSchema.safeParse({
    externalId: `${taskRun}/${sample.id}/epoch ${sample.epoch}`,
    taskId: `${header.eval.task}/${sample.id}`,
    attempt: sample.epoch,
    startedAt,
    ...(timed.length > 0 && { endedAt: timed.at(-1)! }),
    // The threshold on every run, scored or not: the summary's rate of each scorer reads it.
    threshold,
    ...(score === null
      ? { unscoredReason: unscoredReason! }
      : { scoredAt: scoredAt!, endpointLabel: score >= threshold ? ("success" as const) : ("failure" as const), score }),
    ...(sample.scores &&
      Object.keys(sample.scores).length > 0 && {
        scorerValues: Object.fromEntries(Object.entries(sample.scores).map(([scorer, s]) => [scorer, s.value ?? null])),
      }),
    ...(sample.error
      ? {
          runClass: "environment_failure" as const,
          runClassEvidence: `Inspect recorded the sample's error: ${sample.error.message ?? "(no message)"}`.slice(0, 4_000),
        }
      : limit && { runClass: "protocol_stop" as const, runClassEvidence: limit }),
    toolCalls: calls.map((c) => ({
      tool: c.tool,
      ...(c.callId && { callId: c.callId }),
      ...(c.requestedAt && { at: c.requestedAt }),
      ...(c.arguments && { arguments: c.arguments }),
      ...callOutcome(c),
    })),
    messages,
    ...(modelCalls.length > 0 && { modelCalls }),
    effects,
  } satisfies RunRecord);
  // The log's own values can exceed the record's limits (a 300-character sample id): that sample is left out, saying which.
  if (!run.success) return { leftOut: `its values do not fit the run record: ${firstIssue(run.error)}` };
  if (score === null) return { run: run.data, mapping: null, scoredFrom: "unscored", ...unreadableLabel(labelling) };
  return {
    run: run.data,
    mapping: `score ${describe(value)} read as ${score}: ${score >= threshold ? "success" : "failure"} at threshold ${threshold}`,
    scoredFrom: scoreTime ? "event" : "log",
  };
}

/**
 * An Inspect log's runs, its samples given one at a time (a large log is never held whole):
 * `header` is the `.json` document's fields or the `.eval`'s header.json. Throws SkippedLog at
 * once for a header it cannot read, and from finish() when no run came of the samples.
 */
export function inspectLogReader(
  format: Extract<LogFormat, "inspect-json" | "inspect-eval">,
  rawHeader: unknown,
  options: InspectOptions = {},
) {
  const parsedHeader = inspectHeaderSchema.safeParse(rawHeader);
  if (!parsedHeader.success) throw new SkippedLog(`not a readable Inspect log header: ${firstIssue(parsedHeader.error)}`);
  const header = parsedHeader.data;
  if (!INSPECT_LOG_VERSIONS.includes(header.version))
    throw new SkippedLog(`Inspect log version ${header.version} is unknown to this importer (it reads ${INSPECT_LOG_VERSIONS.join(", ")})`);
  const threshold = options.threshold ?? DEFAULT_SCORE_THRESHOLD;
  const named = options.scorer;
  const runs: RunRecord[] = [];
  // The samples' scorers, in the order they first appear, with how many samples each has a readable value in.
  const scorers = new Map<string, number>();
  // The labelling scorer that gave runs no label (a dict-valued one), and how many.
  const unreadable = new Map<string, number>();
  // Scorers named by score events (a sample without `scores` may still have them).
  const eventScorers = new Set<string>();
  const leftOut: ImportedLog["leftOut"] = [];
  // Every sample the log holds (a run or not): checked, at the end, against what the log says it completed.
  const found = new Set<string>();
  const mappings = new Set<string>();
  let scoredFromLog = 0;
  let unscored = 0;
  // Scores strictly between 0 and 1 (partial credit): the log's mean counts them in part, the success rate here not at all below the threshold.
  let partialCredit = 0;
  let index = 0;
  return {
    add(raw: unknown): void {
      const key = sampleKeySchema.safeParse(raw);
      if (key.success) found.add(sampleKey(key.data));
      const parsed = inspectSampleSchema.safeParse(raw);
      if (!parsed.success) {
        leftOut.push({ sample: `#${index}`, reason: `not a readable sample: ${firstIssue(parsed.error)}` });
      } else {
        for (const event of parsed.data.events ?? [])
          if (event.event === "score" && typeof event.scorer === "string") eventScorers.add(event.scorer);
        for (const [scorer, s] of Object.entries(parsed.data.scores ?? {}))
          scorers.set(scorer, (scorers.get(scorer) ?? 0) + (scoreAsNumber(s.value) === null ? 0 : 1));
        const outcome = runOfSample(header, parsed.data, threshold, named);
        if ("leftOut" in outcome) leftOut.push({ sample: `${parsed.data.id} epoch ${parsed.data.epoch}`, reason: outcome.leftOut });
        else {
          runs.push(outcome.run);
          if (outcome.mapping) mappings.add(outcome.mapping);
          const score = outcome.run.score;
          if (score !== undefined && score > 0 && score < 1) partialCredit += 1;
          if (outcome.scoredFrom === "log") scoredFromLog += 1;
          if (outcome.scoredFrom === "unscored") unscored += 1;
          if (outcome.unreadableScorer) unreadable.set(outcome.unreadableScorer, (unreadable.get(outcome.unreadableScorer) ?? 0) + 1);
        }
      }
      index += 1;
    },
    /**
     * The log's runs. `summaries`: the samples the log lists as completed (an `.eval`'s summaries.json
     * or its journal's), each of which must be found, as many as its header.results.completed_samples.
     */
    finish(summaries: readonly unknown[] = []): ImportedLog {
      const resultNames = [
        ...(header.eval.scorers ?? []).map((s) => s.name),
        // An entry's name is a key of a dict-valued scorer's value when it names its scorer apart: the scorer is the scorer.
        ...(header.results?.scores ?? []).map((s) => s.scorer ?? s.name),
        ...eventScorers,
      ];
      if (named !== undefined && !scorers.has(named) && !resultNames.includes(named)) {
        const known = [...new Set([...scorers.keys(), ...resultNames])];
        throw new UnknownScorer(
          `scorer: this log has no scorer named ${named} (${known.length > 0 ? `its scorers: ${known.join(", ")}` : "it records no scorer"}): nothing of it was imported`,
        );
      }
      const labellingScorer = named ?? scorers.keys().next().value;
      const listed = new Set(
        summaries.flatMap((s) => {
          const key = sampleKeySchema.safeParse(s);
          return key.success ? [sampleKey(key.data)] : [];
        }),
      );
      // An archive's header counts the entries it wrote; a `.json` log is whole or fails to parse (and one written without samples says so by holding none).
      const completed = format === "inspect-eval" ? (header.results?.completed_samples ?? 0) : 0;
      // A log Inspect never finished (killed, or still running): it holds the samples done by then, of every sample times every epoch it set out to run.
      const unfinished = header.status === "started";
      const epochs = header.eval.config?.epochs ?? 1;
      const planned = unfinished ? (header.eval.dataset?.samples ?? 0) * epochs : 0;
      const plannedKeys = unfinished
        ? Array.from({ length: epochs }, (_, epoch) =>
            (header.eval.dataset?.sample_ids ?? []).flatMap((id) =>
              typeof id === "string" || typeof id === "number" ? [sampleKey({ id, epoch: epoch + 1 })] : [],
            ),
          ).flat()
        : [];
      const expected = Math.max(listed.size, completed, found.size, planned);
      const missing = [...new Set([...listed, ...plannedKeys])].filter((key) => !found.has(key));
      const incomplete = expected > found.size ? { expected, found: found.size, missing: missing.slice(0, MISSING_NAMED) } : undefined;
      if (runs.length === 0) {
        if (found.size === 0 && incomplete)
          throw new SkippedLog(
            `nothing to import: incomplete: the log says it completed ${expected} sample(s) but holds none${missing.length > 0 ? ` (missing: ${incomplete.missing.join(", ")}${missing.length > MISSING_NAMED ? ", …" : ""})` : ""}`,
          );
        const why = leftOut[0]
          ? `${leftOut.length} sample(s), none a run: ${leftOut[0].reason}`
          : `no samples${header.status === "success" ? "" : ` (status ${header.status})`}`;
        throw new SkippedLog(`nothing to import: ${why}`);
      }
      const notes = [...mappings];
      if (incomplete && unfinished)
        notes.push(
          `incomplete: killed or unfinished (status started: Inspect never finished the log); it set out to run ${incomplete.expected} sample(s) and holds ${incomplete.found}` +
            (missing.length > 0 ? ` (missing: ${incomplete.missing.join(", ")}${missing.length > MISSING_NAMED ? ", …" : ""})` : "") +
            ": the samples it holds are imported, the missing ones are not runs",
        );
      else if (incomplete)
        notes.push(
          `incomplete: the log says it completed ${incomplete.expected} sample(s) but holds ${incomplete.found}` +
            (missing.length > 0 ? ` (missing: ${incomplete.missing.join(", ")}${missing.length > MISSING_NAMED ? ", …" : ""})` : "") +
            ": the samples it holds are imported, the missing ones are not runs",
        );
      if (unscored > 0)
        notes.push(
          `${unscored} sample(s) have no readable score: stored as unscored runs (no endpoint label), counted on their own and in no rate`,
        );
      const readable = [...scorers].filter(([, values]) => values > 0).map(([scorer]) => scorer);
      for (const [scorer, n] of unreadable) {
        notes.push(
          `${n} sample(s) have no label: their labelling scorer ${scorer}${named === undefined ? " (the first scorer, labelling by default)" : ""} recorded a value that is no label, number or boolean (a dict or list): stored unscored` +
            (readable.length > 0
              ? `; scorer(s) with readable values: ${readable.join(", ")}: import again with --scorer ${readable[0]} to label the runs by it`
              : ""),
        );
      }
      // The figures the log itself headlines, beside which the success rate here is a different one: say which is which.
      const harnessMetrics = harnessMetricsOf(header, new Set(scorers.keys()));
      const own = harnessMetrics.map((m) => `${m.scorer} ${m.metric} ${m.value}`);
      if (own.length > 0)
        notes.push(
          `the log's own figures, as Inspect computed them: ${own.join(", ")}; the success rate here is another figure, the share of samples whose ${labellingScorer ? `scorer ${labellingScorer}'s` : "score event's"} score is at or above ${threshold}` +
            (partialCredit > 0
              ? ` (${partialCredit} sample(s) have partial credit, which a mean counts in part and the success rate as failures)`
              : ""),
        );
      if (scoredFromLog > 0)
        notes.push(`${scoredFromLog} sample(s) have no score event: scored at their last event, or the log's completion time`);
      if (header.status !== "success")
        notes.push(
          `the log's status is ${header.status}${header.error?.message ? ` (${header.error.message})` : ""}: its samples are imported`,
        );
      const model = header.eval.model ? ` · ${header.eval.model}` : "";
      return {
        format,
        evaluation: {
          name: `Inspect ${header.eval.task}${model} · ${header.eval.task_id ?? header.eval.run_id ?? header.eval.created ?? "log"}`,
          harness: "inspect",
          benchmark: header.eval.task,
        },
        runs,
        notes,
        unknownTools: [],
        leftOut,
        ...(incomplete && { incomplete }),
        ...(harnessMetrics.length > 0 && { harnessMetrics }),
        ...(labellingScorer !== undefined && { labellingScorer: { source: logSource(header), scorer: labellingScorer } }),
        ...(labellingScorer !== undefined &&
          unreadable.has(labellingScorer) && {
            unlabelled: {
              scorer: labellingScorer,
              runs: unreadable.get(labellingScorer)!,
              readable: readable.filter((s) => s !== labellingScorer),
            },
          }),
      };
    },
  };
}

/** The log an import names in the harness's figures: Inspect's task id (or run id, or task). */
const logSource = (header: InspectHeader) => header.eval.task_id ?? header.eval.run_id ?? header.eval.task;

/**
 * The log's `results.scores` as figures by the scorer a sample's `scores` names: an entry named after
 * a sample scorer is that scorer's; an entry named after a key of a dict-valued scorer's value is its
 * scorer's, the metric named `key/metric`; a reducer named when one scorer has several entries.
 */
function harnessMetricsOf(header: InspectHeader, sampleScorers: ReadonlySet<string>): HarnessMetric[] {
  const entries = header.results?.scores ?? [];
  return entries.flatMap((entry) => {
    const ownName = sampleScorers.has(entry.name) || !entry.scorer;
    const scorer = ownName ? entry.name : entry.scorer!;
    const keyPrefix = ownName ? "" : `${entry.name}/`;
    const reduced = entry.reducer && entries.filter((other) => other.name === entry.name).length > 1 ? `${entry.reducer} ` : "";
    return Object.entries(entry.metrics ?? {}).flatMap(([metric, { value }]) =>
      value === null ? [] : [{ source: logSource(header), scorer, metric: `${reduced}${keyPrefix}${metric}`, value }],
    );
  });
}

/** An Inspect log held whole → its runs. Throws SkippedLog when no run can come of it. */
export function importInspectLog(
  format: Extract<LogFormat, "inspect-json" | "inspect-eval">,
  rawHeader: unknown,
  rawSamples: Iterable<unknown>,
  options: InspectOptions = {},
): ImportedLog {
  const reader = inspectLogReader(format, rawHeader, options);
  for (const raw of rawSamples) reader.add(raw);
  return reader.finish();
}
