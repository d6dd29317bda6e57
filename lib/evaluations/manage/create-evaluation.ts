import type { Db } from "../../db/prisma";
import { DomainError } from "../../errors";
import { Prisma } from "../../generated/prisma/client";
import { declareRuleAtCreation } from "../../statistics/exclusion-rule-store";
import type { CreateEvaluationBody } from "../evaluation-requests";

/** 409: the name is another evaluation's (names are unique, compared exactly); `existing` names it. */
export class EvaluationNameTakenError extends DomainError {
  constructor(readonly existing: { id: string; name: string }) {
    super(
      "conflict",
      "name_taken",
      `name: an evaluation named "${existing.name}" already exists (${existing.id}); choose another name`,
      "name",
      { existing },
    );
  }
}

/**
 * Creates an evaluation with its effect policy and its exclusion rule as version 1 (no tools named, the default rule, when none is given), in one transaction.
 * A taken name throws EvaluationNameTakenError, found by the unique index: a check before the insert could pass for two racing creations.
 */
export async function createEvaluation(db: Db, body: CreateEvaluationBody, createdById: string | null): Promise<string> {
  try {
    return await db.$transaction(async (tx) => {
      const { id } = await tx.evaluation.create({
        data: {
          name: body.name,
          description: body.description,
          harness: body.harness,
          benchmark: body.benchmark,
          createdById,
          effectPolicyVersion: 1,
          liveRunTimeoutSeconds: body.liveRunTimeoutSeconds,
          scoreThreshold: body.scoreThreshold,
          labelMap: body.labelMap,
        },
        select: { id: true },
      });
      await tx.evaluationEffectPolicy.create({
        data: { evaluationId: id, version: 1, tools: body.effectPolicy?.tools ?? {}, createdById },
      });
      if (body.exclusionRule) await declareRuleAtCreation(tx, { kind: "evaluation", id }, body.exclusionRule, createdById);
      return id;
    });
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")) throw error;
    const existing = await db.evaluation.findUnique({ where: { name: body.name }, select: { id: true, name: true } });
    if (!existing) throw error;
    throw new EvaluationNameTakenError(existing);
  }
}
