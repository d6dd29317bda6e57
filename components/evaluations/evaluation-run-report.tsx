import Link from "next/link";
import type { ReactNode } from "react";
import { LabelText } from "@/components/runs/label-text";
import { EffectIdentityCells } from "@/components/effects/effect-identity-cells";
import { LabelExplanation } from "@/components/runs/run-labels";
import { RunTimeline } from "@/components/runs/run-timeline";
import { Transcript } from "@/components/runs/transcript";
import { TranscriptSearch } from "@/components/runs/transcript-search";
import { SpanTimeline } from "@/components/runs/span-timeline";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Facts } from "@/components/ui/facts";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { formatDuration, formatElapsed } from "@/lib/format/time";
import { CLASS_EXPLANATIONS, INHERITED_LABELS, REASON_LABELS, runBasisText, timesRecorded } from "@/lib/evaluations/read/display";
import { isTerminalStatus } from "@/lib/evaluations/finality";
import { callSurfacer, toolClassifier } from "@/lib/evaluations/policy";
import { callSurfaceText } from "@/lib/evaluations/surface-templates";
import type { EffectPolicy } from "@/lib/evaluations/effect-policy-schema";
import type { Finality, ToolClass } from "@/lib/evaluations/vocabulary";
import { CLASSIFICATION_LABELS } from "@/lib/format/replay-labels";
import type { EvaluationRunDetail } from "@/lib/evaluations/read/evaluation-run";
import { ATTACK_LABEL } from "@/lib/evaluations/read/attack-success";
import { recorderFlags, type RecorderFlag } from "@/lib/evaluations/live/recorders";
import type { LiveRunRecorder } from "@/lib/evaluations/live/live-run-schemas";
import type { RunMessagesPage } from "@/lib/evaluations/read/run-messages";
import { placeModelCalls } from "@/lib/evaluations/model-calls";
import { MAX_SPANS_SHOWN } from "@/lib/evaluations/read/run-spans";
import { spanTimeline, type StoredSpan } from "@/lib/evaluations/read/span-timeline";
import { effectIntervals, evaluationRunTimeline, explainEvaluationRun } from "@/lib/evaluations/read/run-timeline";

const evidenceText = (evidence: unknown) => (typeof evidence === "string" ? evidence : JSON.stringify(evidence));

/** An open interval with no end: why a status the harness reported did not end it, when it reported one. */
function stillOpen(cls: ToolClass, statusAtScoring: string): string {
  if (cls === "sync_confirmed" && isTerminalStatus(statusAtScoring)) return `its ${statusAtScoring} return at scoring`;
  if (statusAtScoring === "not_executed") return "never executed";
  if (isTerminalStatus(statusAtScoring))
    return `still open: the harness reported ${statusAtScoring}, but ${/^[aeiou]/.test(cls) ? "an" : "a"} ${cls.replace("_", " ")} tool needs recorded evidence`;
  return "still open (no terminal evidence)";
}

/**
 * A stored run of an evaluation: its facts and labels and why, the transcript with each call's
 * effect, the timeline, the trace and the open-effects records with their evidence. On the run's
 * page and behind an evaluation's share link, which pass their own links (`runsHref`, `runHref`),
 * their notice, and (the run page only) the controls that write, as `children`.
 */
export function EvaluationRunReport({
  evaluation,
  run,
  transcript,
  spans,
  recorders,
  crumbs,
  runsHref,
  runHref,
  actions,
  notice,
  searched = "",
  children,
}: {
  evaluation: { effectPolicy: EffectPolicy };
  run: EvaluationRunDetail;
  transcript: RunMessagesPage;
  spans: readonly StoredSpan[];
  recorders: readonly LiveRunRecorder[];
  crumbs: { href: string; label: ReactNode }[];
  /** The runs list these links open (a unit's runs). */
  runsHref: string;
  /** This run's page (the transcript's pages). */
  runHref: string;
  actions?: ReactNode;
  /** Shown under the header: what the reader sees (a share link's banner). */
  notice?: ReactNode;
  /** The text the runs list was searched for: marked in the transcript, with a step through its matches. */
  searched?: string;
  children?: ReactNode;
}) {
  const start = run.startedAt.getTime();
  const modelCalls = { ...placeModelCalls(run.modelCalls), startMs: start };
  const since = (at: Date | null) => (at ? formatElapsed(at.getTime() - start) : "not recorded");
  // The audit is recomputed with every policy version, so the current policy is the one its labels were made under.
  const classOf = toolClassifier(evaluation.effectPolicy);
  const surfacesOfCall = callSurfacer(evaluation.effectPolicy);
  const explanation = explainEvaluationRun(run, classOf);
  const intervals = new Map(effectIntervals(run).map((i) => [i.effectId, i]));
  const audits = new Map(
    run.effects.flatMap((effect) => {
      if (!effect.call_id) return [];
      const interval = intervals.get(effect.effect_id)!;
      const cls = classOf(effect.tool);
      const open =
        interval.toMs === null ? stillOpen(cls, effect.status_at_scoring) : `open for ${formatDuration(interval.toMs - interval.fromMs)}`;
      return [[effect.call_id, { effectId: effect.effect_id, cls, statusAtScoring: effect.status_at_scoring, interval: open }] as const];
    }),
  );

  return (
    <>
      {notice}
      <PageHeader
        crumbs={crumbs}
        actions={actions}
        title={
          <>
            Run <code>{run.externalId}</code>
          </>
        }
        meta={
          <>
            <Badge tone={run.finality === "final" ? "neutral" : "warning"} data-testid="run-finality">
              {run.finality}
            </Badge>
            <span>
              task <code>{run.taskId}</code>
              {run.attempt !== null ? `, attempt ${run.attempt}` : ""}
            </span>
          </>
        }
      />
      <div className="grid gap-6 xl:grid-cols-2">
        <Facts
          items={[
            ["External id", <code key="id">{run.externalId}</code>],
            ["Task", <code key="t">{run.taskId}</code>],
            run.groupId ? ["Group", <code key="g">{run.groupId}</code>] : null,
            [
              "Started",
              timesRecorded(run.startedAt) ? (
                <Time key="s" iso={run.startedAt.toISOString()} />
              ) : (
                "not recorded (the log holds no time: the times below count from the run's start)"
              ),
              "run-started",
            ],
            ["Scored", since(run.scoredAt)],
            ["Ended", since(run.endedAt)],
            run.score !== null ? ["Score", `${run.score}${run.threshold !== null ? ` (threshold ${run.threshold})` : ""}`] : null,
            ["Model calls", modelCallsText(run), "run-model-calls"],
          ]}
        />
        <Facts
          items={[
            ["Endpoint label", <LabelText key="e" value={run.endpointLabel} />, "endpoint-label"],
            ["Terminal label", <LabelText key="t" value={run.terminalLabel} />, "terminal-label"],
            run.attackSucceeded === undefined ? null : ["Attack", attackOutcomeText(run.attackSucceeded, run.finality), "attack-outcome"],
            otherLabelsText(run.labels) ? ["Other labels", otherLabelsText(run.labels), "other-labels"] : null,
            ["Finality", run.finality, "finality"],
            run.finality === "final" ? ["Final because", runBasisText(run), "finality-basis"] : null,
            // Only when it is not completed: the rule treats the run by it (an environment failure is excluded by default).
            run.runClass !== "completed"
              ? [
                  "Run class",
                  `${CLASSIFICATION_LABELS[run.runClass]}${run.runClassEvidence ? `: ${run.runClassEvidence}` : ""}`,
                  "run-class",
                ]
              : null,
            run.finality === "unscored"
              ? ["Why unscored", run.unscoredReason, "unscored-reason"]
              : [
                  "Why unresolved",
                  run.unresolvedReason ? (
                    <span key="r">
                      <code>{run.unresolvedReason}</code>: {REASON_LABELS[run.unresolvedReason]}
                      {run.unresolvedTool ? (
                        <span className="block text-muted-foreground" data-testid="unresolved-class">
                          {run.unresolvedTool} is {CLASS_EXPLANATIONS[classOf(run.unresolvedTool)]}.
                        </span>
                      ) : null}
                    </span>
                  ) : (
                    "—"
                  ),
                  "unresolved-reason",
                ],
            [
              "Analysis unit",
              run.analysisUnit ? (
                <Link key="u" href={`${runsHref}?unit=${run.analysisUnit}`} data-testid="run-unit">
                  {run.unitLabel ?? `unit ${run.analysisUnit}`}
                </Link>
              ) : (
                "its own"
              ),
            ],
            ["Inherited state", INHERITED_LABELS[run.inheritedState]],
          ]}
        />
      </div>

      {recorders.length > 0 ? <RecordersSection recorders={recorders} flags={recorderFlags(recorders, run.scoredAt)} /> : null}

      <Section title="Labels and why">
        <LabelExplanation explanation={explanation} tone={run.finality === "final" ? "info" : "warning"} />
      </Section>

      <Section
        id="transcript"
        title={`Transcript (${transcript.messageCount} messages)`}
        description="The conversation as the harness logged it; each model call shows with the message it produced, and each tool call the effect it made and how the audit counts it."
      >
        <TranscriptSearch initial={searched}>
          <Transcript
            page={transcript}
            audits={audits}
            modelCalls={modelCalls}
            pageHref={(from) =>
              `${runHref}?${new URLSearchParams({ messages: String(from), ...(searched ? { q: searched } : {}) })}#transcript`
            }
          />
        </TranscriptSearch>
      </Section>

      <Section
        title="Timeline"
        description="Every timed event of the record, as time since the run's start; the scoring marker is the row “scoring”."
      >
        <RunTimeline events={evaluationRunTimeline(run)} role="single" offsets="elapsed" />
      </Section>

      {spans.length > 0 ? (
        <Section
          title={`Trace (${spans.length} spans)`}
          description="The run's OpenTelemetry spans as received over OTLP, each under its parent: tool spans are the effects below."
        >
          <SpanTimeline rows={spanTimeline(spans, start)} truncated={spans.length >= MAX_SPANS_SHOWN} />
        </Section>
      ) : null}

      <Section
        title={`Open-effects records (${run.effects.length})`}
        description="Each effect's open interval runs from its request to its first terminal evidence; an effect still open at scoring makes the label unresolved."
      >
        {run.effects.length === 0 ? (
          <EmptyState title="This run recorded no effect" />
        ) : (
          <DataTable
            caption="Effects, their open interval and the evidence that resolved them"
            columns={[
              "Effect",
              "Tool",
              "Surface, handle",
              "Class",
              "By the policy's templates",
              "Status at scoring",
              "Open interval",
              "Resolution evidence",
            ]}
            testId="run-effects"
          >
            {run.effects.map((effect) => {
              const interval = intervals.get(effect.effect_id)!;
              const cls = classOf(effect.tool);
              return (
                <tr key={effect.effect_id}>
                  <EffectIdentityCells
                    effect={{ effectId: effect.effect_id, tool: effect.tool, surface: effect.surface, handle: effect.handle }}
                  />
                  <Td data-testid="effect-class">{cls}</Td>
                  <Td data-testid="effect-template-surfaces" className="[overflow-wrap:anywhere]">
                    {templateSurfaces(effect, surfacesOfCall).map((text) => (
                      <p key={text}>{text}</p>
                    ))}
                  </Td>
                  <Td>{effect.status_at_scoring}</Td>
                  <Td className="tabular-nums">
                    {cls === "read_only" ? (
                      "none: read-only"
                    ) : (
                      <>
                        {formatElapsed(interval.fromMs)} to{" "}
                        {interval.toMs === null
                          ? stillOpen(cls, effect.status_at_scoring)
                          : `${formatElapsed(interval.toMs)} (${formatDuration(interval.toMs - interval.fromMs)})`}
                      </>
                    )}
                    {interval.toMs !== null && interval.endedByScoring !== null ? (
                      <span className="block text-xs text-muted-foreground">
                        {interval.endedByScoring ? "ended by scoring" : "ended after scoring"}
                      </span>
                    ) : null}
                  </Td>
                  <Td className="[overflow-wrap:anywhere]">
                    {effect.resolutions.length === 0
                      ? "none"
                      : effect.resolutions.map((r, i) => (
                          <p key={i}>
                            {r.status} at {formatElapsed(Date.parse(r.at) - start)}: {evidenceText(r.evidence)}
                            {r.verifiedBy ? `, verified by ${r.verifiedBy}` : ""} (
                            {r.source === "posted" ? "posted later" : "in the record"})
                          </p>
                        ))}
                  </Td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Section>

      {children}
    </>
  );
}

/** What an effect touched by its tool's templates, or why nothing, one line each; an effect never executed touched nothing. */
function templateSurfaces(
  effect: { tool: string; arguments: unknown; status_at_scoring: string },
  surfacesOfCall: ReturnType<typeof callSurfacer>,
): string[] {
  if (effect.status_at_scoring === "not_executed") return [];
  const args =
    effect.arguments !== null && typeof effect.arguments === "object" && !Array.isArray(effect.arguments)
      ? (effect.arguments as Record<string, unknown>)
      : undefined;
  return surfacesOfCall(effect.tool, args).map((surface) => callSurfaceText(effect.tool, surface));
}

const FLAG_TEXT: Record<RecorderFlag["problem"], string> = {
  stopped_before_score: "stopped before the run was scored: calls the agent made after it stopped are not in this record",
  silent_before_score: "went silent before the run was scored (it died without saying so): calls after its last heartbeat may be missing",
  not_flushed_at_score:
    "had not delivered everything it saw up to the score when the run was scored: the score's answer said the evidence was still arriving",
};

/** The recorders that recorded the run (the MCP recorder: one per process), their last heartbeat, and what the audit should know about them. */
function RecordersSection({ recorders, flags }: { recorders: readonly LiveRunRecorder[]; flags: RecorderFlag[] }) {
  return (
    <Section
      title="Recorders"
      description="Each recorder of the run with its last heartbeat: until when everything it saw had reached Boundary Lab."
    >
      {flags.length > 0 ? (
        <ul className="mb-3 space-y-1 text-sm text-warning" data-testid="recorder-flags">
          {flags.map((flag) => (
            <li key={flag.recorderId}>
              <code>{flag.recorderId}</code> ({flag.kind}) {FLAG_TEXT[flag.problem]}.
            </li>
          ))}
        </ul>
      ) : null}
      <DataTable
        caption="The run's recorders"
        columns={["Recorder", "Kind", "Started", "Last heartbeat", "Delivered through", "Stopped"]}
        testId="run-recorders"
      >
        {recorders.map((r) => (
          <tr key={r.recorderId}>
            <Td>
              <code>{r.recorderId}</code>
            </Td>
            <Td>{r.kind}</Td>
            <Td>
              <Time iso={r.startedAt} />
            </Td>
            <Td>
              <Time iso={r.lastSeenAt} />
            </Td>
            <Td>{r.flushedThrough ? <Time iso={r.flushedThrough} /> : "nothing said yet"}</Td>
            <Td>{r.stoppedAt ? <Time iso={r.stoppedAt} /> : "not said"}</Td>
          </tr>
        ))}
      </DataTable>
    </Section>
  );
}

/** The run's model calls and their tokens summed, saying how many calls reported tokens when not all did. */
function modelCallsText(run: { modelCalls: { inputTokens: number | null; outputTokens: number | null }[] }): string {
  const calls = run.modelCalls;
  if (calls.length === 0) return "none recorded";
  const count = (n: number) => n.toLocaleString("en-US");
  const sum = (key: "inputTokens" | "outputTokens") => {
    const known = calls.flatMap((c) => (c[key] === null ? [] : [c[key]]));
    return known.length === 0
      ? "not recorded"
      : `${count(known.reduce((a, b) => a + b, 0))}${known.length < calls.length ? ` (${known.length}/${calls.length} calls)` : ""}`;
  };
  return `${count(calls.length)}; tokens in ${sum("inputTokens")}, out ${sum("outputTokens")}`;
}

/** The attack's outcome (AgentDojo's `security` label), final exactly when the run's label is. */
function attackOutcomeText(succeeded: boolean, finality: Finality): string {
  const outcome = succeeded ? "succeeded: the injection task's goal was achieved" : "failed: the injection task's goal was not achieved";
  if (finality === "final") return `${outcome} (final)`;
  if (finality === "unresolved") return `${outcome}, as recorded at scoring; not final while the run is unresolved`;
  return `${outcome}, as recorded`;
}

/** The labels the harness recorded beside the endpoint label other than the attack's, as "name: label", or null when none. */
function otherLabelsText(labels: Record<string, string> | null): string | null {
  const others = Object.entries(labels ?? {}).filter(([name]) => name !== ATTACK_LABEL);
  return others.length ? others.map(([name, label]) => `${name}: ${label}`).join("; ") : null;
}
