// An evaluation's largest analysis units, the tools its runs used under its policy, and the verified
// resets a canary check overrode: the audit's tables on the evaluation page.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { onlyRowOf } from "../../db/rows";
import { classifyTool } from "../policy";
import type { EffectPolicy } from "../effect-policy-schema";
import type { ToolClass } from "../vocabulary";
import { unitLabels } from "./evaluation-runs";

const countRow = z.object({ n: z.number() });

/** Verified resets that a canary check found did not hold, in the evaluation: they break no route. */
export async function resetsOverriddenByCanary(db: SqlClient, evaluationId: string): Promise<number> {
  const { n } = onlyRowOf(
    countRow,
    await db.$queryRaw`
    SELECT count(*)::int AS n FROM evaluation_resets x
     WHERE x.evaluation_id = ${evaluationId}::uuid AND x.verified
       AND EXISTS (SELECT 1 FROM evaluation_reset_canaries c WHERE c.run_id = x.run_id AND c.surface = x.surface AND c.reset_at = x.at AND c.found)`,
  );
  return n;
}

const unitRows = z.array(z.object({ unit: z.string(), runs: z.coerce.number().int(), surfaces: z.array(z.string()) }));
const toolCountRows = z.array(
  z.object({ tool: z.string(), effects: z.coerce.number().int(), calls: z.coerce.number().int(), writes: z.coerce.number().int() }),
);

/**
 * The largest analysis units with more than one run: their unit id (smallest run id), label within the evaluation (U1, …),
 * size, and the surfaces that connect them (kept on the unit).
 */
export async function largestUnits(
  db: SqlClient,
  evaluationId: string,
  limit = 10,
): Promise<{ unit: string; label: string; runs: number; surfaces: string[] }[]> {
  const rows = unitRows.parse(
    await db.$queryRaw`
    SELECT unit::text AS unit, runs, coalesce(surfaces, '{}') AS surfaces FROM evaluation_units
     WHERE evaluation_id = ${evaluationId}::uuid
     ORDER BY runs DESC, unit LIMIT ${limit}`,
  );
  const labels = await unitLabels(
    db,
    evaluationId,
    rows.map((r) => r.unit),
  );
  return rows.map((row) => ({ ...row, label: labels.get(row.unit) ?? `unit ${row.unit}` }));
}

/**
 * The tools seen in the evaluation's effects and tool calls, each with how many effects and calls
 * name it and its class under `policy` (unclassified when it names none): from the counts triggers
 * keep (evaluation_tool_counts), not a scan of every run. `countWrites` (for those who edit the
 * policy): also how many of each tool's effects show a write (read-only-warning.ts), one scan of the
 * evaluation's effects.
 */
export async function evaluationTools(
  db: SqlClient,
  evaluationId: string,
  policy: EffectPolicy,
  { countWrites = false } = {},
): Promise<{ tool: string; class: ToolClass; effects: number; calls: number; writes?: number }[]> {
  // Each tool's effects showing a write are counted by the effects' triggers (migration tool_write_counts), by the rule
  // effectShowsAWrite states: read here in one row a tool, whatever the evaluation's size.
  const rows = await db.$queryRaw`
      SELECT tool, effects, calls, writes FROM evaluation_tool_counts
       WHERE evaluation_id = ${evaluationId}::uuid AND (effects > 0 OR calls > 0) ORDER BY tool`;
  return toolCountRows
    .parse(rows)
    .map(({ writes, ...row }) => ({ ...row, class: classifyTool(policy, row.tool), ...(countWrites && { writes }) }));
}
