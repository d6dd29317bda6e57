import { randomUUID } from "node:crypto";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import type { CheckResult } from "./checks";
import type { ReplayConfig } from "./config";
import type { UnitResult } from "./records";

export async function createExperiment(db: Db, config: ReplayConfig): Promise<string> {
  const experiment = await db.experiment.create({ data: { state: "running", config: config as unknown as Prisma.InputJsonValue }, select: { id: true } });
  return experiment.id;
}

/**
 * Stores a finished replay in one transaction: every run, open effect and check, and the
 * experiment's final state. A failed check fails the experiment; it is never hidden.
 */
export async function saveReplay(
  db: Db,
  experimentId: string,
  input: { results: UnitResult[]; checks: CheckResult[]; wallMs: number; service: { url: string; timeOrigin: number } },
): Promise<void> {
  const runs: Prisma.RunCreateManyInput[] = [];
  const effects: Prisma.OpenEffectCreateManyInput[] = [];
  for (const result of input.results) {
    const runIds = new Map<string, string>();
    for (const run of result.runs) {
      const id = randomUUID();
      runIds.set(run.role, id);
      runs.push({ id, experimentId, ...run, evidence: run.evidence as unknown as Prisma.InputJsonValue });
    }
    for (const { role, ...effect } of result.effects) {
      effects.push({
        experimentId,
        runId: runIds.get(role)!,
        ...effect,
        arguments: effect.arguments as Prisma.InputJsonValue,
        possibleTransitions: effect.possibleTransitions as unknown as Prisma.InputJsonValue,
        terminalEvidence: effect.terminalEvidence as unknown as Prisma.InputJsonValue,
      });
    }
  }
  const failed = input.checks.filter((c) => !c.passed).map((c) => c.name);
  await db.$transaction([
    db.run.createMany({ data: runs }),
    db.openEffect.createMany({ data: effects }),
    db.implementationCheck.createMany({ data: input.checks.map((c, position) => ({ experimentId, position, ...c })) }),
    db.experiment.update({
      where: { id: experimentId },
      data: {
        state: failed.length ? "failed" : "completed",
        error: failed.length ? `implementation checks failed: ${failed.join(", ")}` : null,
        finishedAt: new Date(),
        wallMs: input.wallMs,
        service: input.service,
      },
    }),
  ]);
}

export async function markExperimentFailed(db: Db, experimentId: string, error: string): Promise<void> {
  await db.experiment.update({ where: { id: experimentId }, data: { state: "failed", error, finishedAt: new Date() } });
}
