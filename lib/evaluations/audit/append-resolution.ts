import { z } from "zod";
import type { Db } from "../../db/prisma";
import { conflict, DomainError, invalid, notFound } from "../../errors";
import type { Prisma } from "../../generated/prisma/client";
import { recomputeFinality } from "./finality-store";
import { currentPolicy, lockEvaluationAudit } from "./lock";
import { recomputeSeparation } from "./separation-recompute";
import type { PostResolutionBody } from "../evaluation-requests";

/**
 * Appends late evidence for an effect (never overwriting what is stored) and recomputes its run's
 * audit: finality, and separation on the effect's surface (its write may now have settled).
 * 404 for an unknown evaluation or effect; 409 when several runs use the effect id and the body
 * names none of them; 400 when the resolution precedes the request.
 */
export async function appendResolution(
  db: Db,
  evaluationId: string,
  effectId: string,
  body: PostResolutionBody,
  createdById: string | null,
): Promise<{ id: string; runExternalId: string }> {
  return db.$transaction(
    async (tx) => {
      const policy = await currentPolicy(tx, evaluationId, "share");
      if (!policy) throw notFound("evaluation");
      await lockEvaluationAudit(tx, evaluationId);
      const matches = z
        .array(z.object({ run_id: z.string(), external_id: z.string(), surface: z.string().nullable(), requested_at: z.date() }))
        .parse(
          await tx.$queryRaw`
          SELECT e.run_id::text AS run_id, r.external_id, e.surface, e.requested_at
            FROM evaluation_effects e JOIN evaluation_runs r ON r.id = e.run_id
           WHERE e.evaluation_id = ${evaluationId}::uuid AND e.effect_id = ${effectId}
             AND (${body.runExternalId ?? null}::text IS NULL OR r.external_id = ${body.runExternalId ?? null})
           LIMIT 2`,
        );
      if (matches.length === 0)
        throw new DomainError(
          "not_found",
          "not_found",
          `effect ${effectId} not found${body.runExternalId ? ` in run ${body.runExternalId}` : ""} in this evaluation`,
          body.runExternalId ? "runExternalId" : "effectId",
        );
      if (matches.length > 1)
        throw conflict("ambiguous_effect", `several runs have an effect ${effectId}: name the run with runExternalId`, "runExternalId");
      const effect = matches[0]!;
      if (Date.parse(body.at) < effect.requested_at.getTime())
        throw invalid(`body.at: the resolution is before the effect was requested (${effect.requested_at.toISOString()})`, "at");
      const evidence = body.evidence as Prisma.InputJsonValue;
      const { id } = await tx.evaluationEffectResolution.create({
        data: {
          runId: BigInt(effect.run_id),
          evaluationId,
          effectId,
          status: body.status,
          at: new Date(body.at),
          evidence,
          verifiedBy: body.verifiedBy,
          source: "posted",
          createdById,
        },
        select: { id: true },
      });
      await recomputeFinality(tx, evaluationId, policy, [effect.run_id]);
      if (effect.surface !== null) await recomputeSeparation(tx, evaluationId, [effect.surface], [effect.run_id]);
      return { id: id.toString(), runExternalId: effect.external_id };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}
