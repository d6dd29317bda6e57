import { z } from "zod";
import { randomUUID } from "node:crypto";
import type { Db } from "../../db/prisma";
import type { Prisma } from "../../generated/prisma/client";
import { implementationChecks } from "../rules/checks";
import { replayConfigSchema, type ReplayConfig } from "../rules/config";
import type { ReplayUnit } from "../rules/grid";
import type { EffectRecord, RunRecord, UnitResult } from "../rules/records";
import { rowsOf } from "../../db/rows";

const json = (value: unknown) => value as Prisma.InputJsonValue;

export async function createExperiment(db: Db, config: ReplayConfig): Promise<string> {
  const experiment = await db.experiment.create({ data: { state: "queued", config: json(config) }, select: { id: true } });
  return experiment.id;
}

/** Marks the experiment running when its first unit starts; later calls change nothing. */
export async function markExperimentStarted(db: Db, experimentId: string): Promise<void> {
  await db.experiment.updateMany({
    where: { id: experimentId, startedAt: null, state: "queued" },
    data: { startedAt: new Date(), state: "running" },
  });
}

export interface StoredUnit {
  experimentId: string;
  result: UnitResult;
}

/** The unit's rows with the tables' own column names, for jsonb_populate_recordset. */
function rows({ experimentId, result }: StoredUnit) {
  const createdAt = new Date().toISOString();
  const ids = new Map<string, string>();
  const runs = result.runs.map((run) => {
    const id = randomUUID();
    ids.set(run.role, id);
    return {
      id,
      experiment_id: experimentId,
      test: run.test,
      condition: run.condition,
      task_id: run.taskId,
      group_id: run.groupId,
      schedule_id: run.scheduleId,
      delay_ms: run.delayMs,
      repetition: run.repetition,
      role: run.role,
      namespace: run.namespace,
      key: run.key,
      endpoint_label: run.endpointLabel,
      terminal_label: run.terminalLabel,
      recorded_label: run.recordedLabel,
      final_at_scoring: run.finalAtScoring,
      score: run.score,
      measured_delay_ms: run.measuredDelayMs,
      exposure: run.exposure,
      classification: run.classification,
      inherited_state: run.inheritedState,
      started_at_ms: run.startedAtMs,
      endpoint_at_ms: run.endpointAtMs,
      scored_at_ms: run.scoredAtMs,
      ended_at_ms: run.endedAtMs,
      evidence: run.evidence,
      created_at: createdAt,
    };
  });
  const effects = result.effects.map((effect) => ({
    id: randomUUID(),
    experiment_id: experimentId,
    run_id: ids.get(effect.role)!,
    task_id: effect.taskId,
    group_id: effect.groupId,
    trace_position: effect.tracePosition,
    action: effect.action,
    arguments: effect.arguments,
    initiated_at_ms: effect.initiatedAtMs,
    resource: effect.resource,
    controller: effect.controller,
    observation_handle: effect.observationHandle,
    endpoint_status: effect.endpointStatus,
    possible_transitions: effect.possibleTransitions,
    relevant_until_ms: effect.relevantUntilMs,
    cross_run_route: effect.crossRunRoute,
    terminal_status: effect.terminalStatus,
    terminal_evidence: effect.terminalEvidence,
    resolved_at_ms: effect.resolvedAtMs,
  }));
  return { runs, effects };
}

/**
 * Stores units' runs and open effects in one transaction, idempotently on the runs' natural key
 * (experiment, condition, schedule, delay, repetition, role, task). If any run was already stored (a
 * retried unit), nothing of the batch is kept and each unit is stored on its own instead: a unit
 * stored by an earlier attempt stays as it was, and a new attempt's results are dropped whole,
 * never half-written. Rows travel as one JSON parameter that PostgreSQL unpacks, which keeps the
 * client's CPU (and so the replay's timing) out of it.
 */
export async function saveUnitResults(db: Db, units: StoredUnit[]): Promise<Array<"stored" | "already_stored">> {
  const all = units.map(rows);
  const runs = all.flatMap((r) => r.runs);
  const effects = all.flatMap((r) => r.effects);
  try {
    await db.$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO runs SELECT * FROM jsonb_populate_recordset(NULL::runs, ${JSON.stringify(runs)}::jsonb)
        ON CONFLICT DO NOTHING`; // on the natural key: the runs' one unique index beside their random ids
      if (inserted !== runs.length) throw new AlreadyStored();
      if (effects.length) {
        await tx.$executeRaw`INSERT INTO open_effects SELECT * FROM jsonb_populate_recordset(NULL::open_effects, ${JSON.stringify(effects)}::jsonb)`;
      }
      // Prisma's default 2 s wait for a connection failed the last batch of a long replay on a loaded
      // machine, failing the whole experiment.
    }, STORE_TRANSACTION);
    return units.map(() => "stored");
  } catch (error) {
    if (!(error instanceof AlreadyStored)) throw error;
  }
  if (units.length === 1) return ["already_stored"];
  const outcomes: Array<"stored" | "already_stored"> = [];
  for (const unit of units) outcomes.push(...(await saveUnitResults(db, [unit])));
  return outcomes;
}

class AlreadyStored extends Error {}

/** A batch waits for a connection, and runs, this long at most: storage is off the replay's timing path. */
const STORE_TRANSACTION = { maxWait: 30_000, timeout: 120_000 };

/** Whether any run of this unit is already stored (a retried job then has nothing to redo). */
export async function unitStored(db: Db, experimentId: string, unit: ReplayUnit, taskId: string): Promise<boolean> {
  const found = await db.run.findFirst({
    where: {
      experimentId,
      taskId,
      condition: unit.condition,
      scheduleId: unit.scheduleId,
      delayMs: unit.delayMs,
      repetition: unit.repetition,
    },
    select: { id: true },
  });
  return found !== null;
}

/** The stored units of an experiment, rebuilt from their runs and open effects, for the checks. */
export async function loadUnitResults(db: Pick<Db, "run" | "openEffect">, experimentId: string): Promise<UnitResult[]> {
  const [runs, effects] = await Promise.all([
    db.run.findMany({ where: { experimentId }, orderBy: [{ groupId: "asc" }, { role: "asc" }] }),
    db.openEffect.findMany({ where: { experimentId }, include: { run: { select: { role: true } } } }),
  ]);
  const effectsByGroup = new Map<string, EffectRecord[]>();
  for (const { run, id: _id, experimentId: _e, runId: _r, ...effect } of effects) {
    const list = effectsByGroup.get(effect.groupId) ?? [];
    list.push({ ...effect, role: run.role as EffectRecord["role"] } as unknown as EffectRecord);
    effectsByGroup.set(effect.groupId, list);
  }
  const units = new Map<string, UnitResult>();
  for (const { id: _id, experimentId: _e, createdAt: _c, ...row } of runs) {
    const run = row as unknown as RunRecord;
    let result = units.get(run.groupId);
    if (!result) {
      const unit = {
        test: run.test,
        trace: Number(/^t(\d+):/.exec(run.groupId)?.[1] ?? 0),
        condition: run.condition,
        scheduleId: run.scheduleId,
        delayMs: run.delayMs,
        repetition: run.repetition,
      } as ReplayUnit;
      result = { unit, runs: [], effects: effectsByGroup.get(run.groupId) ?? [] };
      units.set(run.groupId, result);
    }
    result.runs.push(run);
  }
  return [...units.values()];
}

/**
 * Closes an experiment: runs the implementation checks on the evidence as stored, saves them, and
 * sets the final state. A failed check fails the experiment; it is never hidden. The experiment row
 * is locked first, so that two finalize jobs never interleave, and one that is no longer queued or
 * running (already finalized, or cancelled) is left as it is.
 */
export async function finalizeExperiment(db: Db, experimentId: string): Promise<void> {
  await db.$transaction(
    async (tx) => {
      const [row] = rowsOf(
        z.object({ state: z.string() }),
        await tx.$queryRaw`SELECT state FROM experiments WHERE id = ${experimentId}::uuid FOR UPDATE`,
      );
      if (!row || (row.state !== "queued" && row.state !== "running")) return;
      const experiment = await tx.experiment.findUniqueOrThrow({
        where: { id: experimentId },
        select: { config: true, startedAt: true, createdAt: true },
      });
      const config = replayConfigSchema.parse(experiment.config);
      const checks = implementationChecks(await loadUnitResults(tx, experimentId), config);
      const failed = checks.filter((c) => !c.passed).map((c) => c.name);
      const finishedAt = new Date();
      await tx.implementationCheck.deleteMany({ where: { experimentId } });
      await tx.implementationCheck.createMany({ data: checks.map((c, position) => ({ experimentId, position, ...c })) });
      await tx.experiment.update({
        where: { id: experimentId },
        data: {
          state: failed.length ? "failed" : "completed",
          error: failed.length ? `implementation checks failed: ${failed.join(", ")}` : null,
          finishedAt,
          wallMs: finishedAt.getTime() - (experiment.startedAt ?? experiment.createdAt).getTime(),
        },
      });
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

/** Fails a queued or running experiment; one already final (interrupted meanwhile, say) keeps its state. */
export async function markExperimentFailed(db: Db, experimentId: string, error: string): Promise<void> {
  await db.experiment.updateMany({
    where: { id: experimentId, state: { in: ["queued", "running"] } },
    data: { state: "failed", error, finishedAt: new Date() },
  });
}

/** Records the service the experiment ran against and its clock origin, which maps service times to wall time. */
export async function recordService(db: Db, experimentId: string, service: { url: string; timeOrigin: number }): Promise<void> {
  await db.experiment.update({ where: { id: experimentId }, data: { service } });
}
