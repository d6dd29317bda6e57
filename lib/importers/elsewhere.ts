// Which of a batch's runs other evaluations hold too, with the same content: the same log imported
// into a named evaluation and again by default lands in both, and the report says so.
import { z } from "zod";
import type { SqlClient } from "../db/sql-transaction";
import { countColumn, rowsOf } from "../db/rows";
import type { ImportReport } from "./report";

/** The evaluations other than `evaluation` holding runs equal to its runs `externalIds` (same content hash), with how many. */
export async function runsHeldElsewhere(
  db: SqlClient,
  evaluation: { id: string; name: string },
  externalIds: readonly string[],
): Promise<ImportReport["elsewhere"]> {
  const rows = rowsOf(
    z.object({ id: z.string(), name: z.string(), runs: countColumn }),
    await db.$queryRaw`
      SELECT o.evaluation_id::text AS id, e.name, count(*) AS runs
        FROM evaluation_runs r
        JOIN evaluation_runs o ON o.content_hash = r.content_hash AND o.external_id = r.external_id AND o.evaluation_id <> r.evaluation_id
        JOIN evaluations e ON e.id = o.evaluation_id
       WHERE r.evaluation_id = ${evaluation.id}::uuid AND r.external_id = ANY(${externalIds}::text[])
       GROUP BY o.evaluation_id, e.name ORDER BY e.name`,
  );
  return rows.map((r) => ({ evaluationId: evaluation.id, evaluation: evaluation.name, alsoInId: r.id, alsoIn: r.name, runs: r.runs }));
}
