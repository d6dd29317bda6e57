// Step 2 of ingestion: a valid run as the rows it is stored as — its own columns (finality audited
// from its record), its children's rows, the surfaces it touches. Pure: store.ts formats and writes them.
import type { ColumnType } from "../../db/unnest-rows";
import { disagrees } from "../../replay/rules/labels";
import { auditFinality, finalityBasis, type FinalityEffect, type FinalityResolution, type RunFinality } from "../finality";
import { modelCallRow, modelCallTotals } from "../model-calls";
import type { FinalityBasis, ToolClass } from "../vocabulary";
import type { RunRecord, TouchRecord } from "../run-record-schema";
import type { CallSurface } from "../surface-templates";
import type { ValidRun } from "./validate";

const ms = (iso: string) => Date.parse(iso);

/** A run's messages are stored in chunks of this many (migration run_messages): a page reads a few rows, a short conversation is one. */
export const MESSAGES_PER_CHUNK = 50;

/** What a call touches by its tool's templates under the policy (policy.ts, callSurfacer). */
export type CallSurfacer = (tool: string, args: Readonly<Record<string, unknown>> | undefined) => CallSurface[];

/**
 * The touches a run's calls make by their tools' templates (derived, told apart from recorded ones
 * when stored). Each call counts once: its effect when it has one (a read or write at the effect's
 * request; an effect never executed touches nothing), else its tool call (one the harness rejected
 * never ran). A tool call is its effect's when they share a callId, or, without callIds, when it is
 * the k-th call of its tool without one and the effect the k-th such effect. A tool call with no time
 * of its own is placed where it connects the most: a write at the run's start, a read at its end.
 */
export function policyTouches(run: RunRecord, surfacer: CallSurfacer): TouchRecord[] {
  const touches: TouchRecord[] = [];
  const add = (
    tool: string,
    args: Readonly<Record<string, unknown>> | undefined,
    at: { read: string; write: string },
    isPublic: boolean,
  ) => {
    for (const { op, rendered } of surfacer(tool, args))
      if ("surface" in rendered) touches.push({ surface: rendered.surface, op, at: at[op], ...(isPublic && { public: true }) });
  };
  const effectCallIds = new Set<string>();
  const effectsWithoutCallId = new Map<string, number>();
  for (const e of run.effects ?? []) {
    if (e.callId !== undefined) effectCallIds.add(e.callId);
    else effectsWithoutCallId.set(e.tool, (effectsWithoutCallId.get(e.tool) ?? 0) + 1);
    if (e.statusAtScoring !== "not_executed") add(e.tool, e.arguments, { read: e.requestedAt, write: e.requestedAt }, e.public === true);
  }
  const end = run.endedAt ?? run.scoredAt ?? run.startedAt;
  for (const call of run.toolCalls ?? []) {
    if (call.callId !== undefined ? effectCallIds.has(call.callId) : takeOne(effectsWithoutCallId, call.tool)) continue;
    if (call.outcome !== "rejected") add(call.tool, call.arguments, { read: call.at ?? end, write: call.at ?? run.startedAt }, false);
  }
  return touches;
}

/** Takes one from a tool's count: whether it had one left. */
function takeOne(counts: Map<string, number>, tool: string): boolean {
  const left = counts.get(tool) ?? 0;
  if (left > 0) counts.set(tool, left - 1);
  return left > 0;
}

/** The run as the separation audit reads it: its recorded touches, then those its policy derives from its calls. */
export const withDerivedTouches = (run: RunRecord, derived: readonly TouchRecord[]): RunRecord =>
  derived.length === 0 ? run : { ...run, touches: [...(run.touches ?? []), ...derived] };

/** A touch's row (evaluation_touches); `derived` when the policy's templates made it from a call's arguments. */
export const touchRow = (runId: string, evaluationId: string, touch: TouchRecord, derived: boolean) => ({
  run_id: runId,
  evaluation_id: evaluationId,
  surface: touch.surface,
  op: touch.op,
  at: touch.at,
  public: touch.public ?? false,
  derived,
});

/** The surfaces a run touches (`derived`: by its policy's templates): the separation audit recomputes them. */
export function surfacesOf(run: RunRecord, derived: readonly TouchRecord[]): string[] {
  return [
    ...(run.touches ?? []).map((t) => t.surface),
    ...derived.map((t) => t.surface),
    ...(run.effects ?? []).flatMap((e) => (e.surface ? [e.surface] : [])),
    ...(run.resets ?? []).map((r) => r.surface),
    ...(run.scoredOn ?? []),
  ];
}

/** The columns a run's finality fills (at ingestion, and when the audit recomputes it: audit/finality-store.ts); a final run's with its basis. */
export function finalityColumns(finality: RunFinality, basis: () => FinalityBasis) {
  return finality.finality === "final"
    ? { finality: "final", unresolved_reason: null, unresolved_effect_id: null, unresolved_tool: null, finality_basis: basis() }
    : {
        finality: "unresolved",
        unresolved_reason: finality.reason,
        unresolved_effect_id: finality.effectId,
        unresolved_tool: finality.tool,
        finality_basis: null,
      };
}

const UNSCORED_COLUMNS = {
  finality: "unscored",
  unresolved_reason: null,
  unresolved_effect_id: null,
  unresolved_tool: null,
  finality_basis: null,
} as const;

/** A scored run's finality columns under `classOf`. */
function auditedColumns(
  run: { scoredAtMs: number; effects: readonly FinalityEffect[] },
  classOf: (tool: string) => ToolClass,
  declaresDesign: boolean,
) {
  return finalityColumns(auditFinality(run, classOf), () => finalityBasis(run, classOf, declaresDesign));
}

/** A run's own columns, its finality audited from its record and the resolutions posted for it earlier. */
export function runColumns(
  { run, hash }: ValidRun,
  classOf: (tool: string) => ToolClass,
  posted: ReadonlyMap<string, FinalityResolution[]>,
) {
  const effects: FinalityEffect[] = (run.effects ?? []).map((e) => ({
    effectId: e.effectId,
    tool: e.tool,
    handle: e.handle ?? null,
    requestedAtMs: ms(e.requestedAt),
    statusAtScoring: e.statusAtScoring,
    resolutions: [
      ...(e.resolution ? [{ status: e.resolution.status, atMs: ms(e.resolution.at) }] : []),
      ...(posted.get(`${run.externalId}\u0000${e.effectId}`) ?? []),
    ],
  }));
  return {
    external_id: run.externalId,
    task_id: run.taskId,
    group_id: run.groupId ?? null,
    attempt: run.attempt ?? null,
    started_at: run.startedAt,
    ended_at: run.endedAt ?? null,
    scored_at: run.scoredAt ?? null,
    endpoint_label: run.endpointLabel ?? null,
    unscored_reason: run.unscoredReason ?? null,
    terminal_label: run.terminalLabel ?? null,
    score: run.score ?? null,
    threshold: run.threshold ?? null,
    tool_calls: run.toolCalls ?? null,
    labels: run.labels ?? null,
    pipeline: run.pipeline ?? null,
    injection_task_id: run.injectionTaskId ?? null,
    run_class: run.runClass ?? "completed",
    run_class_evidence: run.runClassEvidence ?? null,
    scorer_values: run.scorerValues ?? null,
    ...modelCallColumns(run),
    content_hash: hash,
    // An unscored run has no label to disagree with, and no scoring time to audit finality at.
    disagreement: run.endpointLabel !== undefined && disagrees(run.endpointLabel, run.terminalLabel ?? null),
    harness_design: run.harnessDesign ?? null,
    open_effects: effects.filter((e) => OPEN_AT_SCORING.has(e.statusAtScoring)).length,
    ...(run.scoredAt === undefined
      ? UNSCORED_COLUMNS
      : auditedColumns({ scoredAtMs: ms(run.scoredAt), effects }, classOf, run.harnessDesign !== undefined)),
  };
}

/** The run's model-call sums (model-calls.ts), kept on its row for the lists, the exports and the summary's totals. */
function modelCallColumns(run: RunRecord) {
  const totals = modelCallTotals(run.modelCalls);
  return { input_tokens: totals.inputTokens, output_tokens: totals.outputTokens, model_calls: totals.modelCalls };
}

/** Statuses at scoring that say the effect had not ended yet (the runs list's "open effects"): the record's word, under every policy. */
const OPEN_AT_SCORING = new Set<string>(["pending", "unknown"]);

export const RUN_COLUMNS: Record<string, ColumnType> = {
  external_id: "text",
  task_id: "text",
  group_id: "text",
  attempt: "int",
  started_at: "timestamptz",
  ended_at: "timestamptz",
  scored_at: "timestamptz",
  endpoint_label: "text",
  unscored_reason: "text",
  terminal_label: "text",
  score: "float8",
  threshold: "float8",
  tool_calls: "jsonb",
  labels: "jsonb",
  pipeline: "text",
  injection_task_id: "text",
  run_class: "text",
  run_class_evidence: "text",
  scorer_values: "jsonb",
  input_tokens: "bigint",
  output_tokens: "bigint",
  model_calls: "int",
  content_hash: "text",
  finality: "text",
  unresolved_reason: "text",
  unresolved_effect_id: "text",
  unresolved_tool: "text",
  finality_basis: "text",
  harness_design: "text",
  disagreement: "boolean",
  open_effects: "int",
};

export const CHILD_COLUMNS = {
  evaluation_effects: {
    run_id: "bigint",
    evaluation_id: "uuid",
    effect_id: "text",
    tool: "text",
    call_id: "text",
    trace_position: "int",
    arguments: "jsonb",
    surface: "text",
    controller: "text",
    handle: "text",
    requested_at: "timestamptz",
    acknowledged_at: "timestamptz",
    status_at_scoring: "text",
    possible_transitions: "text[]",
    relevant_until: "timestamptz",
    cross_run_route: "text",
    public: "boolean",
    notes: "text",
  },
  evaluation_effect_resolutions: {
    run_id: "bigint",
    evaluation_id: "uuid",
    effect_id: "text",
    status: "text",
    at: "timestamptz",
    evidence: "jsonb",
    verified_by: "text",
    source: "text",
  },
  /** `derived`: made by the policy's templates from a call's arguments (policyTouches), re-derived with each policy version that changes them. */
  evaluation_touches: {
    run_id: "bigint",
    evaluation_id: "uuid",
    surface: "text",
    op: "text",
    at: "timestamptz",
    public: "boolean",
    derived: "boolean",
  },
  evaluation_resets: {
    run_id: "bigint",
    evaluation_id: "uuid",
    surface: "text",
    at: "timestamptz",
    verified: "boolean",
    evidence: "jsonb",
  },
  evaluation_reset_canaries: {
    run_id: "bigint",
    evaluation_id: "uuid",
    surface: "text",
    reset_at: "timestamptz",
    planted: "text",
    found: "boolean",
    evidence: "jsonb",
    source: "text",
  },
  evaluation_run_messages: { run_id: "bigint", chunk: "int", first_position: "int", count: "int", messages: "jsonb" },
  evaluation_run_model_calls: {
    run_id: "bigint",
    position: "int",
    model: "text",
    started_at: "timestamptz",
    duration_ms: "float8",
    input_tokens: "int",
    output_tokens: "int",
    error: "text",
    message_position: "int",
  },
  /** A run with calls awaits its trace (lib/evaluations/record-traces/record-traces.ts): trace_id is left null. */
  evaluation_run_traces: { run_id: "bigint", evaluation_id: "uuid" },
} as const satisfies Record<string, Record<string, ColumnType>>;
export type ChildTable = keyof typeof CHILD_COLUMNS;
export const CHILD_TABLES = Object.keys(CHILD_COLUMNS) as ChildTable[];
/** A new run's children that no trigger counts and whose run key is checked at commit: copied before the audit lock. */
export const DETACHED_CHILD_TABLES = [
  "evaluation_effect_resolutions",
  "evaluation_touches",
  "evaluation_resets",
  "evaluation_reset_canaries",
  "evaluation_run_messages",
  "evaluation_run_model_calls",
  "evaluation_run_traces",
] as const satisfies readonly ChildTable[];

/**
 * A run's effects, their record's resolutions, touches (scoredOn as `score` touches at scoredAt; `derived`, those its policy's
 * templates make: policyTouches), resets and their canary checks,
 * its messages and model calls, and its trace link when it made calls, as rows.
 */
export function childRows(
  evaluationId: string,
  id: string,
  run: RunRecord,
  derived: readonly TouchRecord[],
): Record<ChildTable, Record<string, unknown>[]> {
  return {
    evaluation_effects: (run.effects ?? []).map((e) => ({
      run_id: id,
      evaluation_id: evaluationId,
      effect_id: e.effectId,
      tool: e.tool,
      call_id: e.callId ?? null,
      trace_position: e.tracePosition ?? null,
      arguments: e.arguments ?? null,
      surface: e.surface ?? null,
      controller: e.controller ?? null,
      handle: e.handle ?? null,
      requested_at: e.requestedAt,
      acknowledged_at: e.acknowledgedAt ?? null,
      status_at_scoring: e.statusAtScoring,
      possible_transitions: e.possibleTransitions ?? null,
      relevant_until: e.relevantUntil ?? null,
      cross_run_route: e.crossRunRoute ?? null,
      public: e.public ?? false,
      notes: e.notes ?? null,
    })),
    evaluation_effect_resolutions: (run.effects ?? []).flatMap((e) =>
      e.resolution
        ? [
            {
              run_id: id,
              evaluation_id: evaluationId,
              effect_id: e.effectId,
              status: e.resolution.status,
              at: e.resolution.at,
              evidence: e.resolution.evidence,
              verified_by: e.resolution.verifiedBy ?? null,
              source: "record",
            },
          ]
        : [],
    ),
    evaluation_touches: [
      ...(run.touches ?? []).map((t) => touchRow(id, evaluationId, t, false)),
      ...derived.map((t) => touchRow(id, evaluationId, t, true)),
      ...(run.scoredAt === undefined
        ? []
        : (run.scoredOn ?? []).map((surface) => ({
            run_id: id,
            evaluation_id: evaluationId,
            surface,
            op: "score",
            at: run.scoredAt,
            public: false,
            derived: false,
          }))),
    ],
    evaluation_resets: (run.resets ?? []).map((r) => ({
      run_id: id,
      evaluation_id: evaluationId,
      surface: r.surface,
      at: r.at,
      verified: r.verified,
      evidence: r.evidence ?? null,
    })),
    evaluation_reset_canaries: (run.resets ?? []).flatMap((r) =>
      r.canary
        ? [
            {
              run_id: id,
              evaluation_id: evaluationId,
              surface: r.surface,
              reset_at: r.at,
              planted: r.canary.planted,
              found: r.canary.found,
              evidence: r.canary.evidence,
              source: "record",
            },
          ]
        : [],
    ),
    evaluation_run_messages: Array.from({ length: Math.ceil((run.messages ?? []).length / MESSAGES_PER_CHUNK) }, (_, chunk) => {
      const messages = run.messages!.slice(chunk * MESSAGES_PER_CHUNK, (chunk + 1) * MESSAGES_PER_CHUNK);
      return { run_id: id, chunk, first_position: chunk * MESSAGES_PER_CHUNK, count: messages.length, messages };
    }),
    evaluation_run_model_calls: (run.modelCalls ?? []).map((call, position) => modelCallRow(id, position, call)),
    evaluation_run_traces: (run.toolCalls ?? []).length > 0 ? [{ run_id: id, evaluation_id: evaluationId }] : [],
  };
}
