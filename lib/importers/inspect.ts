// An Inspect AI log (lib/testing/fixtures/inspect/README.md; `.json` or `.eval`) → one run per sample
// and epoch. Inspect says nothing about what its tools change, so every tool call becomes an effect
// of an `unclassified` tool (the evaluation's policy names none) until the user classifies it.
import { z } from "zod";
import { modelCallsOfSample } from "./inspect-model-calls";
import { boundedContent, boundedMessages, contentText, roleOf } from "./transcript";
import { DEFAULT_SCORE_THRESHOLD } from "../evaluations/vocabulary";
import {
  runRecordSchema,
  type EffectRecord,
  type MessageRecord,
  type RunRecord,
  type ToolCallRecord,
} from "../evaluations/run-record-schema";
import type { HarnessMetric } from "../evaluations/harness-metrics";
import { SkippedLog, firstIssue, type ImportedLog, type LogFormat } from "./imported-log";

/** Inspect's log versions this importer reads (2 in `.json`, 2 or 3 in `.eval` headers). */
export const INSPECT_LOG_VERSIONS = [1, 2, 3];

const timeSchema = z.string().refine((s) => Number.isFinite(Date.parse(s)), "not a time");
/** A log-level time: Inspect writes `""` for one it has not recorded yet (a `.json` log's `stats` until its eval finishes). */
const logTimeSchema = z.preprocess((value) => (value === "" ? null : value), timeSchema.nullish());

export const inspectHeaderSchema = z.looseObject({
  version: z.number().int(),
  status: z.string(),
  eval: z.looseObject({
    task: z.string().min(1),
    task_id: z.string().nullish(),
    run_id: z.string().nullish(),
    model: z.string().nullish(),
    created: logTimeSchema,
    /** What the eval set out to run: its samples (and their ids) times its epochs. */
    dataset: z.looseObject({ samples: z.number().int().nonnegative().nullish(), sample_ids: z.array(z.unknown()).nullish() }).nullish(),
    config: z.looseObject({ epochs: z.number().int().positive().nullish() }).nullish(),
    /** The task's scorers, in order (newer logs). */
    scorers: z.array(z.looseObject({ name: z.string() })).nullish(),
  }),
  stats: z.looseObject({ started_at: logTimeSchema, completed_at: logTimeSchema }).nullish(),
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  /** How many samples the log says it completed (header.json, or the `.json` log). */
  results: z
    .looseObject({
      completed_samples: z.number().int().nonnegative().nullish(),
      /** The log's own figures per scorer (accuracy, mean, stderr...), as Inspect computed them over its scores. */
      scores: z
        .array(
          z.looseObject({
            /** The score's name: a sample's key in `scores`, or a key of a dict-valued scorer's value (its metrics given per key). */
            name: z.string(),
            /** The scorer that gave it (the name of the dict-valued scorer whose key `name` is). */
            scorer: z.string().nullish(),
            reducer: z.string().nullish(),
            metrics: z.record(z.string(), z.looseObject({ value: z.number().nullable() })).nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
});
type InspectHeader = z.infer<typeof inspectHeaderSchema>;

const toolErrorSchema = z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish();
const eventSchema = z.looseObject({ event: z.string(), timestamp: timeSchema.nullish() });
const toolEventSchema = eventSchema.extend({
  id: z.string().nullish(),
  function: z.string(),
  arguments: z.record(z.string(), z.unknown()).nullish(),
  error: toolErrorSchema,
  /** The tool raised (Inspect 0.3.2xx): set without an `error` when the exception ended the sample. */
  failed: z.boolean().nullish(),
  completed: timeSchema.nullish(),
});
const scoreEventSchema = eventSchema.extend({
  score: z.looseObject({ value: z.unknown() }),
  intermediate: z.boolean().nullish(),
  /** The scorer that gave it (newer logs). */
  scorer: z.string().nullish(),
});
const messageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string().nullish(), function: z.string(), arguments: z.record(z.string(), z.unknown()).nullish() }))
    .nullish(),
  tool_call_id: z.string().nullish(),
  function: z.string().nullish(),
  error: toolErrorSchema,
});

export const inspectSampleSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  epoch: z.number().int().min(0),
  scores: z.record(z.string(), z.looseObject({ value: z.unknown() })).nullish(),
  messages: z.array(messageSchema).nullish(),
  events: z.array(eventSchema).nullish(),
  /** The sample raised (a model API error, a sandbox that failed): Inspect records the error instead of finishing it. */
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  /** The sample stopped on a declared budget (`{type: "message" | "token" | "time" | "working" | ..., limit}`). */
  limit: z.unknown().optional(),
  /** Older logs keep the timeline here instead of `events`. */
  transcript: z.looseObject({ events: z.array(eventSchema).nullish() }).nullish(),
});
type InspectSample = z.infer<typeof inspectSampleSchema>;

/** A sample's key in a log: its id and epoch, as Inspect's summaries name it. */
const sampleKeySchema = z.looseObject({ id: z.union([z.string(), z.number()]), epoch: z.number().int() });
const sampleKey = (sample: { id: string | number; epoch: number }) => `${sample.id} epoch ${sample.epoch}`;

/** At most this many missing samples are named (the count says how many there are). */
const MISSING_NAMED = 20;

/** An Inspect `.json` log or `.eval` header, told by its own fields. */
export function looksLikeInspect(value: unknown): boolean {
  return typeof value === "object" && value !== null && "eval" in value && "version" in value && "status" in value;
}

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

/** A decimal number as text (what Python's float reads, less inf and nan): no hex, no binary. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/;

/**
 * A score value as a number the way Inspect's own `value_to_float` reads it: C 1, I 0, P 0.5, N 0,
 * yes/true 1, no/false 0, numbers and decimal strings as they are. null for lists, objects and
 * other text: no label can be read from those. The summary reads stored values with its SQL twin,
 * score_as_number (migration scorer_rates).
 */
export function scoreAsNumber(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const text = value.trim().toLowerCase();
  const named: Record<string, number> = { c: 1, i: 0, p: 0.5, n: 0, yes: 1, true: 1, no: 0, false: 0 };
  if (text in named) return named[text]!;
  const number = Number(text);
  return DECIMAL.test(text) && Number.isFinite(number) ? number : null;
}

const iso = (time: string) => new Date(time).toISOString();
const describe = (value: unknown) => (typeof value === "string" ? `"${value}"` : JSON.stringify(value));

interface Call {
  callId?: string;
  tool: string;
  arguments?: Record<string, unknown>;
  requestedAt?: string;
  completedAt?: string;
  /** undefined: nothing says the call returned. */
  error?: string | null;
  /** The sample ended with the model turn that asked for it (a limit, an error): no tool event or message says it ran, and none could come. */
  notExecuted?: boolean;
}

/**
 * A sample's tool events as calls. A call marked `failed` with no `error` raised an exception that ended
 * the sample: the sample's error is the only message the log has for it.
 */
function callsFromEvents(events: readonly z.infer<typeof eventSchema>[], sampleError: string | undefined): Call[] {
  return events.flatMap((raw) => {
    if (raw.event !== "tool") return [];
    const event = toolEventSchema.safeParse(raw);
    if (!event.success) return [];
    const { id, function: tool, arguments: args, error, completed, timestamp } = event.data;
    const raised = event.data.failed
      ? `failed: ${sampleError ? `${sampleError} (the sample's error: the call records none of its own)` : "Inspect marked the call failed and recorded no error"}`
      : null;
    const failed = error ? `${error.type ?? "error"}: ${error.message ?? ""}`.trim() : raised;
    return [
      {
        ...(id && { callId: id }),
        tool,
        ...(args && { arguments: args }),
        ...(timestamp && { requestedAt: iso(timestamp) }),
        ...(completed && { completedAt: iso(completed) }),
        ...(completed || failed ? { error: failed } : {}),
      },
    ];
  });
}

/**
 * Older logs (and logs without tool events, as the R package vitals writes them): assistant
 * `tool_calls`, answered by `tool` messages with the same `tool_call_id`; a tool message with no call
 * before it stands for its call. The calls of a last assistant message went unexecuted: Inspect runs a
 * turn's calls, and adds their tool messages, before anything else.
 */
function callsFromMessages(messages: readonly z.infer<typeof messageSchema>[]): Call[] {
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  const last = messages.at(-1);
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        const entry: Call = {
          ...(call.id && { callId: call.id }),
          tool: call.function,
          ...(call.arguments && { arguments: call.arguments }),
          ...(message === last && { notExecuted: true }),
        };
        calls.push(entry);
        if (call.id) byId.set(call.id, entry);
      }
    } else if (message.role === "tool") {
      const error = message.error ? `${message.error.type ?? "error"}: ${message.error.message ?? ""}`.trim() : null;
      const call = message.tool_call_id ? byId.get(message.tool_call_id) : undefined;
      if (call) call.error = error;
      else calls.push({ ...(message.tool_call_id && { callId: message.tool_call_id }), tool: message.function || "(unnamed tool)", error });
    }
  }
  return calls;
}

/** The sample's messages as the run's transcript: an assistant's calls by their ids, a tool message by the call it answers (its error as its text when it failed). */
function transcriptOf(messages: readonly z.infer<typeof messageSchema>[]): MessageRecord[] {
  const transcript: MessageRecord[] = [];
  for (const message of messages) {
    const role = roleOf(message.role);
    if (!role) continue;
    const content = boundedContent(contentText(message.content));
    const calls = (message.tool_calls ?? []).map((call, i) => ({
      id: (call.id?.trim() || `call-${transcript.length}-${i}`).slice(0, 200),
      tool: (call.function.trim() || "(unnamed tool)").slice(0, 200),
      ...(call.arguments && { arguments: call.arguments }),
    }));
    const error = message.error?.message ? boundedContent(`${message.error.type ?? "error"}: ${message.error.message}`) : null;
    transcript.push({
      role,
      content: role === "tool" && error && content === "" ? error : content,
      ...(role === "assistant" && calls.length > 0 && { toolCalls: calls }),
      ...(role === "tool" && message.tool_call_id?.trim() && { toolCallId: message.tool_call_id.trim().slice(0, 200) }),
    });
  }
  return boundedMessages(transcript);
}

/**
 * A sample's calls: its tool events, and the calls its messages hold that no tool event records (never
 * one twice: a message call without an id is taken only when the timeline records no call at all).
 */
function callsOfSample(
  timeline: readonly z.infer<typeof eventSchema>[] | undefined,
  messages: readonly z.infer<typeof messageSchema>[],
  sampleError: string | undefined,
): Call[] {
  const fromMessages = callsFromMessages(messages);
  const fromEvents = timeline ? callsFromEvents(timeline, sampleError) : [];
  if (fromEvents.length === 0) return fromMessages;
  const recorded = new Set(fromEvents.flatMap((c) => (c.callId ? [c.callId] : [])));
  return [...fromEvents, ...fromMessages.filter((c) => c.callId !== undefined && !recorded.has(c.callId))];
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

/** What an effect's status was when the sample was scored (an unscored sample: when its log ends). */
function statusAtScoring(call: Call, scoredAt: string | undefined): EffectRecord["statusAtScoring"] {
  if (call.notExecuted && call.error === undefined) return "not_executed";
  if (call.error) return "failed";
  if (call.completedAt !== undefined)
    return scoredAt === undefined || Date.parse(call.completedAt) <= Date.parse(scoredAt) ? "completed" : "pending";
  return call.error === null ? "completed" : "unknown"; // from messages: a tool message answered it
}

/** Inspect's tool error types that mean the call was refused before it ran (a malformed call, one not approved or not permitted). */
const REFUSED_ERROR_TYPES = ["parsing", "approval", "permission"];

/** The call's outcome for the legal-action rate: none when no event or message answered it. */
function callOutcome(call: Call): Pick<ToolCallRecord, "outcome" | "error"> {
  if (call.error === undefined) return {};
  if (call.error === null) return { outcome: "ok" };
  const refused = REFUSED_ERROR_TYPES.some((type) => call.error!.startsWith(`${type}:`));
  return { outcome: refused ? "rejected" : "error", error: call.error.slice(0, 4_000) || "error" };
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

/** The scorers of a sample whose value reads as a number: those a run could be labelled by. */
const readableScorers = (sample: InspectSample) =>
  Object.entries(sample.scores ?? {}).flatMap(([scorer, s]) => (scoreAsNumber(s.value) === null ? [] : [scorer]));

function unreadableScoreReason(scorer: string | undefined, value: unknown, sample: InspectSample): string {
  const readable = readableScorers(sample);
  const choose = readable.length > 0 ? `: choose the labelling scorer (--scorer; readable here: ${readable.join(", ")})` : "";
  const shown = describe(value);
  return `score ${shown.length > 300 ? `${shown.slice(0, 299)}…` : shown}${scorer ? ` (scorer ${scorer})` : ""} is not a label, number or boolean: no endpoint label can be read from it${choose}`;
}

const unreadableLabel = (labelling: { scorer?: string; value: unknown } | { unscoredReason: string }) =>
  "value" in labelling && labelling.scorer !== undefined ? { unreadableScorer: labelling.scorer } : {};

/** Why a sample with no score is stored unscored (finality unscored: no endpoint label, in no rate). */
export const NO_SCORE_REASON =
  "no score event and no score: the sample was never scored (score the log with `inspect score`, then import it again)";

/** The labelling scorer's value of a sample: the named scorer's, else the first scorer's; without `scores`, the (named scorer's) last score event's. */
function labellingScore(
  sample: InspectSample,
  scoreEvents: readonly z.infer<typeof scoreEventSchema>[],
  named: string | undefined,
): { scorer?: string; value: unknown } | { unscoredReason: string } {
  const scores = Object.entries(sample.scores ?? {});
  const lastScoreEvent = scoreEvents.at(-1);
  if (named !== undefined) {
    const entry = scores.find(([scorer]) => scorer === named);
    if (entry) return { scorer: named, value: entry[1].value };
    // A sample without `scores`: the named scorer's own score event, where the log names it.
    const event = scores.length === 0 ? scoreEvents.findLast((e) => e.scorer === named) : undefined;
    if (event) return { scorer: named, value: event.score.value };
    return { unscoredReason: `scorer ${named} (the labelling scorer named) recorded no value for this sample` };
  }
  if (scores[0]) return { scorer: scores[0][0], value: scores[0][1].value };
  if (lastScoreEvent) return { value: lastScoreEvent.score.value };
  return { unscoredReason: NO_SCORE_REASON };
}

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
