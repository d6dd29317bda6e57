// Deleting an evaluation (docs/evaluations.md, Export, delete, and the audit log): a mistaken import is undone from the product, not the database.
// One transaction: the evaluation locked (ingestion, which holds it FOR SHARE, finishes first or finds
// it gone), its runs counted, every row of it removed by the schema's cascades, and a line in the audit
// log saying who deleted what and how many runs went with it. Share links to it then answer 410.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit-log/audit-log";
import type { Db } from "../../db/prisma";
import { onlyRowOf, rowsOf } from "../../db/rows";
import { conflict, notFound } from "../../errors";
import { storedRunCount } from "../read/get-evaluation";

export const deleteEvaluationQuerySchema = z.strictObject({
  /** The run count the confirmation named: when the evaluation holds another number now, nothing is deleted (409). */
  expectedRuns: z
    .string("expectedRuns must be a whole number")
    .regex(/^\d{1,12}$/, "expectedRuns must be a whole number")
    .transform(Number)
    .optional(),
});
export type DeleteEvaluationQuery = z.infer<typeof deleteEvaluationQuerySchema>;

export interface DeletedEvaluation {
  id: string;
  name: string;
  /** Stored runs (ingested, imported, or scored live runs) that went with it. */
  runs: number;
  /** Live runs still open when it was deleted. */
  openLiveRuns: number;
  deletedAt: string;
}

export async function deleteEvaluation(db: Db, actor: AuditActor, id: string, query: DeleteEvaluationQuery): Promise<DeletedEvaluation> {
  return db.$transaction(
    async (tx) => {
      const [evaluation] = rowsOf(
        z.object({ name: z.string() }),
        await tx.$queryRaw`SELECT name FROM evaluations WHERE id = ${id}::uuid FOR UPDATE`,
      );
      if (!evaluation) throw notFound(`evaluation ${id}`);
      const { open } = onlyRowOf(
        z.object({ open: z.number() }),
        await tx.$queryRaw`SELECT count(*)::int AS open FROM live_runs WHERE evaluation_id = ${id}::uuid AND state = 'open'`,
      );
      const runs = await storedRunCount(tx, id);
      if (query.expectedRuns !== undefined && query.expectedRuns !== runs)
        throw conflict(
          "run_count_changed",
          `evaluation ${evaluation.name} now holds ${runs} runs, not the ${query.expectedRuns} confirmed: nothing was deleted (confirm again)`,
          "expectedRuns",
          { runs },
        );
      const { at } = onlyRowOf(
        z.object({ at: z.date() }),
        await tx.$queryRaw`DELETE FROM evaluations WHERE id = ${id}::uuid RETURNING now() AS at`,
      );
      await recordAudit(tx, actor, {
        action: "evaluation.delete",
        resourceType: "evaluation",
        resourceId: id,
        details: { name: evaluation.name, runs, openLiveRuns: open },
      });
      return { id, name: evaluation.name, runs, openLiveRuns: open, deletedAt: at.toISOString() };
    },
    // A million runs' cascade takes longer than Prisma's default 5 s.
    { timeout: 600_000, maxWait: 30_000 },
  );
}
