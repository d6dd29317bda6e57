// What the share-link tests share: a test database with four accounts, an experiment stored as the
// replay would with one finality run and its open effect, and helpers to open, refuse and tamper with links.
import { afterAll, beforeAll, expect, inject } from "vitest";
import type { Principal } from "../auth/principal";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { DomainError, type ErrorKind } from "../errors";
import { replayConfigSchema } from "../replay/rules/config";
import { createTestDatabase, type TestDatabase } from "./database";
import { createShareLinkSchema } from "../share/share-link-schemas";
import type { OpenShareLinkResult } from "../share/share-links";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = new Date("2031-03-01T12:00:00.000Z");
export const at = (ms: number) => new Date(T0.getTime() + ms);
/** The ISO string of `at(ms)`: how results report times. */
export const iso = (ms: number) => at(ms).toISOString();
export const DEFAULTS = { defaultExpiryDays: 14, now: T0 };

export let database: TestDatabase;
export let db: Db;

export const principal = (id: string, role: Principal["role"]): Principal => ({
  userId: id,
  email: `${id}@example.test`,
  name: id,
  role,
  via: "session",
});
export const alice = principal("alice", "editor");
export const bob = principal("bob", "editor");
export const root = principal("root", "admin");
export const carol = principal("carol", "editor");

// ---------------------------------------------------------------------------------------------
// Fixtures: an experiment with one finality run and its open effect, written as the replay would.

export async function addRun(experimentId: string, repetition: number, recordedLabel: "success" | "failure") {
  return db.run.create({
    data: {
      experimentId,
      test: "finality",
      condition: "snapshot",
      taskId: "task-1",
      groupId: `group-${repetition}`,
      scheduleId: 0,
      delayMs: 25,
      repetition,
      role: "single",
      namespace: `ns-${repetition}`,
      key: "k",
      endpointLabel: "success",
      terminalLabel: recordedLabel,
      recordedLabel,
      finalAtScoring: false,
      score: recordedLabel === "success" ? 1 : 0,
      measuredDelayMs: 26.25,
      classification: "completed",
      inheritedState: "none",
      startedAtMs: 1000.5,
      endpointAtMs: 1010.25,
      scoredAtMs: 1011,
      endedAtMs: 1040,
      evidence: { zeta: [3, 1, 2], alpha: { nested: true, none: null }, note: "endpoint read at 1010.25 ms" },
    },
  });
}

export async function seedExperiment() {
  const config = replayConfigSchema.parse({ delaysMs: [25], schedules: 1, repetitions: 2 });
  const experiment = await db.experiment.create({
    data: { state: "running", config: config as unknown as Prisma.InputJsonValue, startedAt: at(-HOUR) },
  });
  const run = await addRun(experiment.id, 0, "success");
  await db.openEffect.create({
    data: {
      experimentId: experiment.id,
      runId: run.id,
      taskId: run.taskId,
      groupId: run.groupId,
      tracePosition: 2,
      action: "write",
      arguments: { key: "k", value: 1 },
      initiatedAtMs: 1001,
      resource: "kv",
      controller: "service",
      observationHandle: `handle-${run.id}`,
      endpointStatus: "pending",
      possibleTransitions: ["completed", "failed"],
      crossRunRoute: "none",
      terminalStatus: "completed",
      terminalEvidence: { seenAtMs: 1030 },
      resolvedAtMs: 1030,
    },
  });
  return { experimentId: experiment.id, runId: run.id };
}

export const input = (fields: Record<string, unknown>) => createShareLinkSchema.parse(fields);

export async function useOf(id: string) {
  return db.shareLink.findUniqueOrThrow({ where: { id }, select: { useCount: true, lastUsedAt: true } });
}

export function expectOk(result: OpenShareLinkResult) {
  if (result.status !== "ok") throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result;
}

export async function expectRefusal(promise: Promise<unknown>, kind: ErrorKind): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe(kind);
  return error as DomainError;
}

/** A token differing from `token` in exactly one character, still well formed. */
export function tampered(token: string, index: number): string {
  const flipped = token[index] === "Q" ? "g" : "Q"; // both valid at any position, including the last
  return `${token.slice(0, index)}${flipped}${token.slice(index + 1)}`;
}

/** The database, with `meanwhile` run right after openShareLink has found the link by its token. */
export function afterTokenLookup(target: Db, meanwhile: () => Promise<unknown>): Db {
  const delegate = target.shareLink;
  const shareLink = new Proxy(delegate, {
    get(object, property) {
      if (property !== "findUnique") return Reflect.get(object, property);
      return async (args: Parameters<typeof delegate.findUnique>[0]) => {
        const found = await delegate.findUnique(args);
        if ("tokenHash" in args.where) await meanwhile();
        return found;
      };
    },
  });
  return new Proxy(target, {
    get(object, property) {
      if (property === "shareLink") return shareLink;
      const value = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

/** The file's test database with the four accounts, made before its tests and dropped after them. */
export function useShareLinkDatabase(): void {
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
    db = database.db;
    for (const p of [alice, bob, root, carol]) await db.user.create({ data: { id: p.userId, email: p.email, name: p.name, role: p.role } });
  });
  afterAll(async () => {
    await database?.drop();
  });
}
