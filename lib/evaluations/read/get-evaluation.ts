// An evaluation as its pages and the API read it: its detail with its current effect policy, every
// version of that policy, whether it exists, and how many runs it stores.
import { z } from "zod";
import { existsAnswer, onlyRowOf } from "../../db/rows";
import type { SqlClient } from "../../db/sql-transaction";
import type { EvaluationDetail } from "./read-boundary";
import { effectPolicySchema, toolEntrySchema, type ToolEntry } from "../effect-policy-schema";
import { labelMapSchema } from "../evaluation-requests";

const evaluationRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  harness: z.string().nullable(),
  benchmark: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.date(),
  effect_policy_version: z.number().int(),
  live_run_timeout_seconds: z.number().int(),
  score_threshold: z.number().nullable(),
  label_map: labelMapSchema.nullable(),
  tools: z.unknown(),
  pending_policy_version: z.number().int().nullable(),
  pending_tools: z.unknown(),
});

const evaluationRows = z.array(evaluationRow);
const policyVersionRows = z.array(
  z.object({ version: z.number().int(), tools: z.record(z.string(), toolEntrySchema), created_at: z.date() }),
);
const uuid = z.uuid();

/** An evaluation and its current effect policy, or null: one round trip (the page's header waits for it). */
export async function getEvaluation(db: SqlClient, evaluationId: string): Promise<EvaluationDetail | null> {
  if (!uuid.safeParse(evaluationId).success) return null; // no such evaluation (a page's path may hold anything)
  const [row] = evaluationRows.parse(
    await db.$queryRaw`
      SELECT e.id::text AS id, e.name, e.description, e.harness, e.benchmark, u.email AS created_by, e.created_at, e.effect_policy_version,
             e.live_run_timeout_seconds, e.score_threshold, e.label_map, p.tools, e.pending_policy_version, pending.tools AS pending_tools
        FROM evaluations e
        JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version
        LEFT JOIN evaluation_effect_policies pending ON pending.evaluation_id = e.id AND pending.version = e.pending_policy_version
        LEFT JOIN users u ON u.id = e.created_by_id
       WHERE e.id = ${evaluationId}::uuid`,
  );
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    harness: row.harness,
    benchmark: row.benchmark,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    effectPolicyVersion: row.effect_policy_version,
    effectPolicy: effectPolicySchema.parse({ tools: row.tools }),
    pendingPolicy:
      row.pending_policy_version === null
        ? null
        : { version: row.pending_policy_version, policy: effectPolicySchema.parse({ tools: row.pending_tools }) },
    liveRunTimeoutSeconds: row.live_run_timeout_seconds,
    scoreThreshold: row.score_threshold,
    labelMap: row.label_map,
  };
}

/** Every version of the evaluation's effect policy, oldest first. */
export async function listEffectPolicyVersions(
  db: SqlClient,
  evaluationId: string,
): Promise<{ version: number; tools: Record<string, ToolEntry>; createdAt: Date }[]> {
  // Raw SQL on the evaluation page's path: Prisma compiles a model query on every call (~0.5 ms of CPU).
  const rows = policyVersionRows.parse(
    await db.$queryRaw`SELECT version, tools, created_at FROM evaluation_effect_policies WHERE evaluation_id = ${evaluationId}::uuid ORDER BY version`,
  );
  return rows.map((row) => ({ version: row.version, tools: row.tools, createdAt: row.created_at }));
}

/** Whether the evaluation exists: raw SQL, as every page under /evaluations/<id> asks first (Prisma compiles a model query on every call). */
export async function evaluationExists(db: SqlClient, evaluationId: string): Promise<boolean> {
  return existsAnswer(await db.$queryRaw`SELECT EXISTS (SELECT 1 FROM evaluations WHERE id = ${evaluationId}::uuid) AS exists`);
}

const runsRow = z.object({ runs: z.number() });

/** The evaluation's stored runs, from the trigger-kept counts (exact in the writer's transaction, flat in the number of runs). */
export async function storedRunCount(db: Pick<SqlClient, "$queryRaw">, id: string): Promise<number> {
  return onlyRowOf(
    runsRow,
    await db.$queryRaw`SELECT coalesce(sum(n), 0)::int AS runs FROM evaluation_run_counts WHERE evaluation_id = ${id}::uuid`,
  ).runs;
}
