import { z } from "zod";
import type { Db } from "../../db/prisma";
import { conflict, DomainError, notFound } from "../../errors";
import type { Prisma } from "../../generated/prisma/client";
import { currentPolicy, lockEvaluationAudit } from "./lock";
import { recomputeSeparation } from "./separation-recompute";
import type { PostResetCanaryBody } from "../evaluation-requests";
import { onlyRowOf } from "../../db/rows";

const resetRows = z.array(z.object({ run_id: z.string(), at: z.date(), verified: z.boolean() }));

/**
 * Appends a canary check to one of a run's resets (never overwriting what is stored) and recomputes
 * separation on the reset's surface: a found canary makes the reset break no route
 * (separation.ts, resetBreaksRoutes). 404 for an unknown evaluation, run or reset; 409 when the run
 * reset the surface more than once and the body gives no `at`.
 */
export async function appendResetCanary(
  db: Db,
  evaluationId: string,
  externalId: string,
  body: PostResetCanaryBody,
  createdById: string | null,
): Promise<{ id: string; resetAt: string; verified: boolean }> {
  return db.$transaction(
    async (tx) => {
      if (!(await currentPolicy(tx, evaluationId, "share"))) throw notFound("evaluation");
      await lockEvaluationAudit(tx, evaluationId);
      const resets = resetRows.parse(
        await tx.$queryRaw`
          SELECT x.run_id::text AS run_id, x.at, x.verified
            FROM evaluation_resets x JOIN evaluation_runs r ON r.id = x.run_id
           WHERE r.evaluation_id = ${evaluationId}::uuid AND r.external_id = ${externalId} AND x.surface = ${body.surface}
             AND (${body.at ?? null}::timestamptz IS NULL OR x.at = ${body.at ?? null}::timestamptz)
           ORDER BY x.at LIMIT 2`,
      );
      if (resets.length === 0)
        throw new DomainError(
          "not_found",
          "not_found",
          `run ${externalId} has no reset of ${body.surface}${body.at ? ` at ${body.at}` : ""} in this evaluation`,
          body.at ? "at" : "surface",
        );
      if (resets.length > 1)
        throw conflict("ambiguous_reset", `run ${externalId} reset ${body.surface} more than once: name the reset with at`, "at");
      const reset = resets[0]!;
      const { id } = await tx.evaluationResetCanary.create({
        data: {
          runId: BigInt(reset.run_id),
          evaluationId,
          surface: body.surface,
          resetAt: reset.at,
          planted: body.planted,
          found: body.found,
          evidence: body.evidence as Prisma.InputJsonValue,
          source: "posted",
          createdById,
        },
        select: { id: true },
      });
      await recomputeSeparation(tx, evaluationId, [body.surface], [reset.run_id]);
      const { survived } = onlyRowOf(
        z.object({ survived: z.boolean() }),
        await tx.$queryRaw`
        SELECT EXISTS (SELECT 1 FROM evaluation_reset_canaries WHERE run_id = ${BigInt(reset.run_id)} AND surface = ${body.surface} AND reset_at = ${reset.at} AND found) AS survived`,
      );
      return { id: id.toString(), resetAt: reset.at.toISOString(), verified: reset.verified && !survived };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}
