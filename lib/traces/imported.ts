// Imported runs' call sequences in the trace library (issue 11 item 4): one trace of source
// `imported` per distinct ordered (function, arguments) sequence, shared by every run that made it,
// and each run's trace_id pointing at it. Set-based and keyed on the evaluation's runs without a
// trace yet, so it is idempotent, heals a run an earlier import left unlinked, and costs one query
// when nothing is new. Runs without tool calls get no trace.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { toolClassifier } from "../evaluations/policy";
import type { EffectPolicy, ToolClass } from "../evaluations/schemas";

/** Runs with calls and no trace yet: the predicate of the partial index evaluation_runs_untraced_idx (keep them equal). */
const UNTRACED = Prisma.sql`er.trace_id IS NULL AND jsonb_typeof(er.tool_calls) = 'array' AND er.tool_calls <> '[]'::jsonb`;

/** Classes whose calls change state; read_only does not, and an unclassified tool is counted as not state-changing. */
const STATE_CHANGING: ReadonlySet<ToolClass> = new Set(["sync_confirmed", "async_handle", "external"]);

/** The tools of `tools` that change state under the policy's classifier. Pure. */
export function stateChangingTools(tools: readonly string[], classOf: (tool: string) => ToolClass): string[] {
  return tools.filter((tool) => STATE_CHANGING.has(classOf(tool))).sort();
}

/**
 * Records the call sequences of the evaluation's runs that have none yet. Returns how many runs it
 * linked. An imported trace's suite is the AgentDojo suite of the first run that made it (its task
 * id's `suite/` part) for an AgentDojo evaluation, else the evaluation's benchmark (or name); its task
 * is that run's task id. Its calls' stateChanging comes from that evaluation's current effect policy.
 */
export async function recordImportedTraces(db: Db, evaluationId: string): Promise<number> {
  // One round trip when nothing is new: the evaluation, its current policy and the tools its untraced runs call.
  const [evaluation] = z
    .array(z.object({ name: z.string(), benchmark: z.string().nullable(), policy: z.record(z.string(), z.string()), tools: z.array(z.string()) }))
    .parse(
      await db.$queryRaw`
        SELECT e.name, e.benchmark, p.tools AS policy,
               ARRAY(SELECT DISTINCT c->>'tool' FROM evaluation_runs er CROSS JOIN LATERAL jsonb_array_elements(er.tool_calls) AS c
                      WHERE er.evaluation_id = e.id AND ${UNTRACED}) AS tools
          FROM evaluations e JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version
         WHERE e.id = ${evaluationId}::uuid`,
    );
  if (!evaluation || evaluation.tools.length === 0) return 0;
  const writes = stateChangingTools(evaluation.tools, toolClassifier({ tools: evaluation.policy } as EffectPolicy));
  const agentDojo = evaluation.benchmark?.toLowerCase() === "agentdojo";
  const suite = evaluation.benchmark ?? evaluation.name;
  return db.$executeRaw`
    WITH seq AS (
      SELECT er.id, er.task_id,
             jsonb_agg(jsonb_build_array(c->>'tool', coalesce(c->'arguments', '{}'::jsonb)) ORDER BY i) AS key,
             jsonb_agg(jsonb_build_object('function', c->>'tool', 'args', coalesce(c->'arguments', '{}'::jsonb), 'result', NULL,
                                          'error', c->>'error', 'stateChanging', (c->>'tool') = ANY(${writes}::text[])) ORDER BY i) AS calls,
             count(*) AS call_count, count(*) FILTER (WHERE (c->>'tool') = ANY(${writes}::text[])) AS state_changing_count
        FROM evaluation_runs er CROSS JOIN LATERAL jsonb_array_elements(er.tool_calls) WITH ORDINALITY AS x(c, i)
       WHERE er.evaluation_id = ${evaluationId}::uuid AND ${UNTRACED}
       GROUP BY er.id, er.task_id
    ), hashed AS (
      SELECT seq.*, encode(sha256(convert_to(key::text, 'UTF8')), 'hex') AS hash,
             CASE WHEN ${agentDojo} AND position('/' in task_id) > 0 THEN split_part(task_id, '/', 1) ELSE ${suite} END AS suite,
             CASE WHEN ${agentDojo} AND position('/' in task_id) > 0 THEN substring(task_id from position('/' in task_id) + 1) ELSE task_id END AS task
        FROM seq
    ), inserted AS (
      INSERT INTO traces (id, source, benchmark_version, suite, task, kind, prompt, calls, call_count, state_changing_count, content_hash)
      SELECT DISTINCT ON (hash) gen_random_uuid(), 'imported', '', suite, task, 'user', '', calls, call_count, state_changing_count, hash
        FROM hashed ORDER BY hash, id
      ON CONFLICT (content_hash) DO NOTHING
      RETURNING id, content_hash
    )
    UPDATE evaluation_runs er SET trace_id = coalesce(inserted.id, existing.id)
      FROM hashed LEFT JOIN inserted ON inserted.content_hash = hashed.hash LEFT JOIN traces existing ON existing.content_hash = hashed.hash
     WHERE er.id = hashed.id AND coalesce(inserted.id, existing.id) IS NOT NULL`;
}
