// evaluation_units as a batch's links merge them (the decisions: units.ts, mergedUnits).
import { z } from "zod";
import type { Tx } from "./lock";
import { mergedUnits, unitsJoined, type UnitJoins } from "./units";

/**
 * Merges analysis units that a batch connected: per link group, the units it now joins. Every
 * component takes its smallest unit id, the others' runs are relabelled, the sizes add up, and each
 * unit keeps every surface that connects it. Runs not yet written (`unstored`) take their unit when
 * they are. Answers each unit id's component.
 */
export async function mergeUnits(
  tx: Tx,
  evaluationId: string,
  unitsOn: UnitJoins,
  unstored: ReadonlySet<string>,
): Promise<Map<string, { unit: string }>> {
  const nodes = unitsJoined(unitsOn);
  const stored = new Map(
    z
      .array(z.object({ unit: z.string(), runs: z.coerce.number().int(), surfaces: z.array(z.string()).nullable() }))
      .parse(
        await tx.$queryRaw`
          SELECT u.unit::text AS unit, u.runs, u.surfaces FROM unnest(${nodes}::bigint[]) AS x(unit)
           CROSS JOIN LATERAL (SELECT unit, runs, surfaces FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = x.unit OFFSET 0) u`,
      )
      .map((r) => [r.unit, r]),
  );
  const { components, rows, relabel, gone } = mergedUnits(unitsOn, stored, unstored);
  if (relabel.length > 0) {
    await tx.$executeRaw`
      UPDATE evaluation_runs r SET analysis_unit = x.unit
        FROM json_to_recordset(${JSON.stringify(relabel)}::json) AS x(old bigint, unit bigint)
       WHERE r.evaluation_id = ${evaluationId}::uuid AND r.analysis_unit = ANY(${relabel.map((m) => m.old)}::bigint[]) AND r.analysis_unit = x.old`;
  }
  if (gone.length > 0)
    await tx.$executeRaw`DELETE FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = ANY(${gone}::bigint[])`;
  if (rows.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_units AS u (evaluation_id, unit, runs, surfaces)
      SELECT ${evaluationId}::uuid, x.unit, x.runs, x.surfaces FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(unit bigint, runs int, surfaces text[])
       ORDER BY x.unit
      ON CONFLICT (evaluation_id, unit) DO UPDATE SET runs = EXCLUDED.runs, surfaces = EXCLUDED.surfaces`;
  }
  return components;
}
