// An evaluation's runs behind its share link: every page under /s/<token>/runs opens the token again
// (revoked, expired, switched off or rate-limited refuse it there as on the link's own page), and a
// frozen link reads the runs as of its freeze (frozen-runs.ts).
import "server-only";
import { z } from "zod";
import type { Db } from "../db/prisma";
import { rowsOf } from "../db/rows";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";
import { lookUpShareLink } from "./access";
import { auditAtFreeze, frozenRunState, type FreezeEffect, type FrozenRunState, type RunsFreeze } from "./frozen-runs";
import { shareRefusal, type ShareRefusal } from "./refusal";
import type { EvaluationRunListItem } from "../evaluations/read/read-boundary";

export interface SharedEvaluation {
  status: "ok";
  evaluation: { id: string; name: string; effectPolicy: EffectPolicy; effectPolicyVersion: number };
  /** null for a live link: the runs as they are. */
  freeze: RunsFreeze | null;
  link: { mode: "frozen" | "live"; snapshotAt: string; expiresAt: string | null; contentHash: string };
}

/**
 * Opens a share link for one of its evaluation's run pages: the link's refusal when it does not open,
 * "not_evaluation" when it is a link to something else (its token opens only its own resource).
 */
export async function openSharedEvaluation(
  db: Db,
  headers: Headers,
  token: string,
): Promise<SharedEvaluation | { status: "refused"; refusal: ShareRefusal } | { status: "not_evaluation" }> {
  const opened = await lookUpShareLink(db, headers, token);
  const refusal = shareRefusal(opened);
  if (refusal || opened.status !== "ok") return { status: "refused", refusal: refusal! };
  if (opened.content.kind !== "evaluation") return { status: "not_evaluation" };
  const { id, name, effectPolicy, effectPolicyVersion } = opened.content.evaluation;
  return {
    status: "ok",
    evaluation: { id, name, effectPolicy, effectPolicyVersion },
    freeze: opened.link.mode === "frozen" ? { at: new Date(opened.snapshotAt), effectPolicy, effectPolicyVersion } : null,
    link: { mode: opened.link.mode, snapshotAt: opened.snapshotAt, expiresAt: opened.link.expiresAt, contentHash: opened.contentHash },
  };
}

const freezeRow = z.object({
  id: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
  effects: z.array(
    z.object({
      effectId: z.string(),
      tool: z.string(),
      handle: z.string().nullable(),
      requestedAt: z.string(),
      statusAtScoring: z.string(),
      resolutions: z.array(z.object({ status: z.string(), at: z.string(), recordedAt: z.string() })),
    }),
  ),
});

/**
 * A page of runs as a frozen link shows them: each run's finality columns recomputed as of the freeze
 * (one query for the page's effects and evidence), with whether its record is still as frozen.
 */
export async function runsAtFreeze<R extends EvaluationRunListItem>(
  db: Db,
  runs: readonly R[],
  freeze: RunsFreeze,
): Promise<(R & { frozenState: FrozenRunState })[]> {
  if (runs.length === 0) return [];
  const rows = rowsOf(
    freezeRow,
    await db.$queryRaw`
      SELECT r.id::text AS id, r.created_at, r.updated_at,
             coalesce((SELECT json_agg(json_build_object(
                        'effectId', e.effect_id, 'tool', e.tool, 'handle', e.handle, 'requestedAt', e.requested_at, 'statusAtScoring', e.status_at_scoring,
                        'resolutions', coalesce((SELECT json_agg(json_build_object('status', s.status, 'at', s.at, 'recordedAt', s.recorded_at) ORDER BY s.id)
                                                   FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id), '[]'::json)))
                         FROM evaluation_effects e WHERE e.run_id = r.id), '[]'::json) AS effects
        FROM evaluation_runs r WHERE r.id = ANY(${runs.map((r) => r.id)}::bigint[])`,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return runs.map((run) => {
    const row = byId.get(run.id)!;
    const effects: FreezeEffect[] = row.effects.map((e) => ({ ...e, requestedAt: new Date(e.requestedAt) }));
    return {
      ...run,
      ...auditAtFreeze(run, effects, freeze),
      frozenState: frozenRunState({ createdAt: row.created_at, updatedAt: row.updated_at }, freeze.at),
    };
  });
}
