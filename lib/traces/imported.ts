// Imported runs' call sequences in the trace library (issue 11 item 4): one trace of source
// `imported` per distinct ordered (function, arguments) sequence, shared by every run that made it,
// and each run's trace_id pointing at it. Set-based and keyed on the evaluation's runs without a
// trace yet, so it is idempotent, heals a run an earlier import left unlinked, and costs one query
// when nothing is new. Runs without tool calls get no trace.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { currentPolicy } from "../evaluations/audit-store";
import { toolClassifier } from "../evaluations/policy";
import type { ToolClass } from "../evaluations/schemas";

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
  const tools = z
    .array(z.object({ tool: z.string() }))
    .parse(
      await db.$queryRaw`
        SELECT DISTINCT c->>'tool' AS tool
          FROM evaluation_runs er CROSS JOIN LATERAL jsonb_array_elements(er.tool_calls) AS c
         WHERE er.evaluation_id = ${evaluationId}::uuid AND er.trace_id IS NULL AND jsonb_typeof(er.tool_calls) = 'array'`,
    )
    .map((r) => r.tool);
  if (tools.length === 0) return 0;
  const [evaluation, policy] = await Promise.all([
    db.evaluation.findUniqueOrThrow({ where: { id: evaluationId }, select: { name: true, benchmark: true } }),
    db.$transaction((tx) => currentPolicy(tx, evaluationId, "share")),
  ]);
  const writes = stateChangingTools(tools, toolClassifier(policy?.policy ?? { tools: {} }));
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
       WHERE er.evaluation_id = ${evaluationId}::uuid AND er.trace_id IS NULL AND jsonb_typeof(er.tool_calls) = 'array'
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
