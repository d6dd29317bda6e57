import { z } from "zod";
import type { Db } from "../db/prisma";
import { effectPolicySchema, type EvaluationDetail } from "./schemas";

/** An evaluation and its current effect policy, or null. */
export async function getEvaluation(db: Db, evaluationId: string): Promise<EvaluationDetail | null> {
  const evaluation = await db.evaluation.findUnique({
    where: { id: evaluationId },
    select: { id: true, name: true, description: true, harness: true, benchmark: true, createdAt: true, effectPolicyVersion: true, createdBy: { select: { email: true } } },
  });
  if (!evaluation) return null;
  const policy = await db.evaluationEffectPolicy.findUniqueOrThrow({ where: { evaluationId_version: { evaluationId, version: evaluation.effectPolicyVersion } }, select: { tools: true } });
  return {
    id: evaluation.id,
    name: evaluation.name,
    description: evaluation.description,
    harness: evaluation.harness,
    benchmark: evaluation.benchmark,
    createdBy: evaluation.createdBy?.email ?? null,
    createdAt: evaluation.createdAt.toISOString(),
    effectPolicyVersion: evaluation.effectPolicyVersion,
    effectPolicy: effectPolicySchema.parse({ tools: policy.tools }),
  };
}

/** Every version of the evaluation's effect policy, oldest first. */
export async function listEffectPolicyVersions(db: Db, evaluationId: string): Promise<{ version: number; tools: Record<string, string>; createdAt: Date }[]> {
  const rows = await db.evaluationEffectPolicy.findMany({ where: { evaluationId }, orderBy: { version: "asc" }, select: { version: true, tools: true, createdAt: true } });
  return rows.map((row) => ({ version: row.version, tools: z.record(z.string(), z.string()).parse(row.tools), createdAt: row.createdAt }));
}
