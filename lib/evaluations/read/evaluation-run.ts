// One run of an evaluation in full, for its page and GET route: its open-effects records with every
// resolution, its touches, model calls, and resets with their canary checks.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { rowsOf } from "../../db/rows";
import { RUN_CLASSIFICATIONS, type RunClassification } from "../../replay/rules/classification";
import type { StoredModelCall } from "../model-calls";
import { LABELS } from "../vocabulary";
import { attackSucceeded } from "./attack-success";
import { listItem, RUN_COLUMNS, runRow, unitLabels } from "./evaluation-runs";
import type { EvaluationRunListItem } from "./read-boundary";

const effectRow = z.object({
  effect_id: z.string(),
  tool: z.string(),
  call_id: z.string().nullable(),
  trace_position: z.number().int().nullable(),
  arguments: z.unknown(),
  surface: z.string().nullable(),
  controller: z.string().nullable(),
  handle: z.string().nullable(),
  requested_at: z.date(),
  acknowledged_at: z.date().nullable(),
  status_at_scoring: z.string(),
  possible_transitions: z.array(z.string()).nullable(),
  relevant_until: z.date().nullable(),
  cross_run_route: z.string().nullable(),
  public: z.boolean(),
  notes: z.string().nullable(),
  resolutions: z.array(
    z.object({
      status: z.string(),
      at: z.string(),
      evidence: z.unknown(),
      verifiedBy: z.string().nullable(),
      source: z.string(),
      recordedAt: z.string(),
    }),
  ),
});

const detailRow = runRow.extend({
  group_id: z.string().nullable(),
  run_class: z.enum(RUN_CLASSIFICATIONS),
  run_class_evidence: z.string().nullable(),
  ended_at: z.date().nullable(),
  threshold: z.number().nullable(),
  tool_calls: z.unknown(),
  labels: z.record(z.string(), z.enum(LABELS)).nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  pipeline: z.string().nullable(),
  injection_task_id: z.string().nullable(),
});
const touchRow = z.object({
  surface: z.string(),
  op: z.enum(["read", "write", "score"]),
  at: z.date(),
  public: z.boolean(),
  derived: z.boolean(),
});
const modelCallRow = z.object({
  position: z.number().int(),
  model: z.string().nullable(),
  started_at: z.date().nullable(),
  duration_ms: z.number().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  error: z.string().nullable(),
  message_position: z.number().int().nullable(),
});
const resetRow = z.object({ surface: z.string(), at: z.date(), verified: z.boolean(), evidence: z.unknown() });
const canaryRow = z.object({
  surface: z.string(),
  reset_at: z.date(),
  planted: z.string(),
  found: z.boolean(),
  evidence: z.unknown(),
  source: z.string(),
});

export type EvaluationRunDetail = EvaluationRunListItem & {
  groupId: string | null;
  /** What became of the run (the run classes of lib/replay/rules/classification.ts; completed unless its record said otherwise), and why. */
  runClass: RunClassification;
  runClassEvidence: string | null;
  endedAt: Date | null;
  score: number | null;
  threshold: number | null;
  toolCalls: unknown;
  /** Other labels the harness recorded beside the endpoint label, by name (AgentDojo's `security`), or null. */
  labels: Record<string, "success" | "failure"> | null;
  /** Under attack (a `security` label): whether the attack succeeded (the injection task's goal was achieved); absent otherwise. */
  attackSucceeded?: boolean;
  /** When the run was first stored, and last re-sent with changes (a share link frozen between them no longer holds its record). */
  createdAt: Date;
  updatedAt: Date;
  /** The agent configuration (model and defence) that ran it, or null when the harness named none. */
  pipeline: string | null;
  /** The injection task an attacked run carried, or null. */
  injectionTaskId: string | null;
  effects: (Omit<z.infer<typeof effectRow>, "resolutions"> & { resolutions: z.infer<typeof effectRow>["resolutions"] })[];
  /** `derived`: made by the policy's surface templates from a call's arguments, not recorded by the harness. */
  touches: { surface: string; op: "read" | "write" | "score"; at: Date; public: boolean; derived: boolean }[];
  /** The agent's model calls in the run's order (every field null where the harness did not say); their tokens are summed in inputTokens and outputTokens. */
  modelCalls: StoredModelCall[];
  /** With every canary check of the reset, oldest first: one found means the reset did not hold. */
  resets: { surface: string; at: Date; verified: boolean; evidence: unknown; canaries: ResetCanaryCheck[] }[];
};

export interface ResetCanaryCheck {
  planted: string;
  found: boolean;
  evidence: unknown;
  source: string;
}

/** One run by its external id, with its open-effects records (every resolution, oldest first), touches and resets; or null. */
// Raw SQL throughout: the run's page reads it on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU).
export async function getEvaluationRun(db: SqlClient, evaluationId: string, externalId: string): Promise<EvaluationRunDetail | null> {
  const [run] = rowsOf(
    detailRow,
    await db.$queryRaw`
      SELECT ${RUN_COLUMNS}, group_id, run_class, run_class_evidence, ended_at, threshold, tool_calls, labels, created_at, updated_at,
             pipeline, injection_task_id
        FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}`,
  );
  if (!run) return null;
  const [touches, resets, canaries, effects, modelCalls] = await Promise.all([
    db.$queryRaw`SELECT surface, op, at, public, derived FROM evaluation_touches WHERE run_id = ${run.id}::bigint ORDER BY at, id`,
    db.$queryRaw`SELECT surface, at, verified, evidence FROM evaluation_resets WHERE run_id = ${run.id}::bigint ORDER BY at, id`,
    db.$queryRaw`SELECT surface, reset_at, planted, found, evidence, source FROM evaluation_reset_canaries WHERE run_id = ${run.id}::bigint ORDER BY id`,
    db.$queryRaw`
      SELECT e.effect_id, e.tool, e.call_id, e.trace_position, e.arguments, e.surface, e.controller, e.handle, e.requested_at, e.acknowledged_at,
             e.status_at_scoring, e.possible_transitions, e.relevant_until, e.cross_run_route, e.public, e.notes,
             coalesce((SELECT json_agg(json_build_object('status', s.status, 'at', s.at, 'evidence', s.evidence, 'verifiedBy', s.verified_by, 'source', s.source, 'recordedAt', s.recorded_at) ORDER BY s.id)
                         FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id), '[]'::json) AS resolutions
        FROM evaluation_effects e WHERE e.run_id = ${run.id}::bigint ORDER BY e.requested_at, e.effect_id`,
    db.$queryRaw`
      SELECT position, model, started_at, duration_ms, input_tokens, output_tokens, error, message_position
        FROM evaluation_run_model_calls WHERE run_id = ${run.id}::bigint ORDER BY position`,
  ]);
  const checks = rowsOf(canaryRow, canaries);
  const attacked = attackSucceeded(run.labels);
  return {
    ...listItem(run, await unitLabels(db, evaluationId, [run.analysis_unit])),
    groupId: run.group_id,
    runClass: run.run_class,
    runClassEvidence: run.run_class_evidence,
    endedAt: run.ended_at,
    score: run.score,
    threshold: run.threshold,
    toolCalls: run.tool_calls,
    labels: run.labels,
    createdAt: run.created_at,
    updatedAt: run.updated_at,
    ...(attacked !== undefined && { attackSucceeded: attacked }),
    pipeline: run.pipeline,
    injectionTaskId: run.injection_task_id,
    effects: rowsOf(effectRow, effects),
    modelCalls: rowsOf(modelCallRow, modelCalls).map((c) => ({
      position: c.position,
      model: c.model,
      startedAt: c.started_at?.toISOString() ?? null,
      durationMs: c.duration_ms,
      inputTokens: c.input_tokens,
      outputTokens: c.output_tokens,
      error: c.error,
      messagePosition: c.message_position,
    })),
    touches: rowsOf(touchRow, touches),
    resets: rowsOf(resetRow, resets).map((r) => ({
      ...r,
      canaries: checks
        .filter((c) => c.surface === r.surface && c.reset_at.getTime() === r.at.getTime())
        .map(({ planted, found, evidence, source }) => ({ planted, found, evidence, source })),
    })),
  };
}
