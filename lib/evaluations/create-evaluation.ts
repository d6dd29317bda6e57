import type { Db } from "../db/prisma";
import { declareRuleAtCreation } from "../statistics/exclusion-rule-store";
import type { CreateEvaluationBody } from "./schemas";

/** Creates an evaluation with its effect policy and its exclusion rule as version 1 (no tools named, the default rule, when none is given), in one transaction. */
export async function createEvaluation(db: Db, body: CreateEvaluationBody, createdById: string | null): Promise<string> {
  return db.$transaction(async (tx) => {
    const { id } = await tx.evaluation.create({
      data: { name: body.name, description: body.description, harness: body.harness, benchmark: body.benchmark, createdById, effectPolicyVersion: 1 },
      select: { id: true },
    });
    await tx.evaluationEffectPolicy.create({ data: { evaluationId: id, version: 1, tools: body.effectPolicy?.tools ?? {}, createdById } });
    if (body.exclusionRule) await declareRuleAtCreation(tx, { kind: "evaluation", id }, body.exclusionRule, createdById);
    return id;
  });
}
