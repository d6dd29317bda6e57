// What the run-list tests share: one experiment stored as the replay would (2 policies, 2 conditions,
// delays {0, 25}, 2 schedules, 3 repetitions: 24 finality runs and 24 pairs), a second one whose runs
// must never show up, and the oracle of what each filter set should match.
import { afterAll, beforeAll, expect, inject } from "vitest";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { replayConfigSchema } from "../replay/rules/config";
import { createTestDatabase, type TestDatabase } from "./database";
import { agreementOf } from "../experiments/read/explain";
import { runListQuerySchema, type RunFilters } from "../experiments/read/filters";
import { listRuns, type RunListRow } from "../experiments/read/runs";
import { sharedPair, snapshotPending } from "./test-support";

export let database: TestDatabase;
export let db: Db;
export let experimentId: string;
export let otherExperimentId: string;
/** What was inserted, as the list should show it: the oracle the filters are checked against. */
export let stored: StoredRun[];

export const TIME_ORIGIN = Date.parse("2031-03-01T12:00:00.000Z") + 0.25;
export const json = (value: unknown) => value as Prisma.InputJsonValue;

export interface StoredRun {
  id: string;
  condition: string;
  scheduleId: number;
  delayMs: number;
  repetition: number;
  role: string;
  endpointLabel: string | null;
  terminalLabel: string | null;
  recordedLabel: string | null;
  exposure: boolean | null;
  classification: string;
}

/** The labels a run of each kind gets: varied so that every filter value has matches and misses. */
export function labelsFor(condition: string, role: string, delayMs: number, scheduleId: number, repetition: number) {
  const late = delayMs > 0;
  const base = {
    endpointLabel: "success",
    terminalLabel: "success",
    recordedLabel: "success",
    exposure: null as boolean | null,
    classification: "completed",
  };
  if (condition === "snapshot" && scheduleId === 2 && repetition === 3 && !late) {
    return {
      ...base,
      endpointLabel: null,
      terminalLabel: "unresolved",
      recordedLabel: "unresolved",
      classification: "environment_failure",
    };
  }
  if (condition === "snapshot" && late) {
    const stopped = repetition === 3;
    return {
      ...base,
      endpointLabel: "failure",
      terminalLabel: stopped ? "unresolved" : "success",
      recordedLabel: "failure",
      classification: stopped ? "protocol_stop" : "completed",
    };
  }
  if (condition === "reconciliation" && late) return { ...base, endpointLabel: "failure" };
  if (condition === "no_write" && role === "A") return { ...base, endpointLabel: null, terminalLabel: null, recordedLabel: null };
  if (role === "A" && late) return { ...base, endpointLabel: "failure" };
  if (role === "B") {
    const exposed = condition === "shared" && late;
    return { ...base, terminalLabel: exposed ? "failure" : "success", recordedLabel: exposed ? "failure" : "success", exposure: exposed };
  }
  return base;
}

export async function storeGrid(experiment: string, repetitions: number): Promise<StoredRun[]> {
  const data: Prisma.RunCreateManyInput[] = [];
  for (const [test, condition, roles] of [
    ["finality", "snapshot", ["single"]],
    ["finality", "reconciliation", ["single"]],
    ["separation", "shared", ["A", "B"]],
    ["separation", "no_write", ["A", "B"]],
  ] as const) {
    for (const delayMs of [0, 25]) {
      for (let scheduleId = 1; scheduleId <= 2; scheduleId++) {
        for (let repetition = 1; repetition <= repetitions; repetition++) {
          for (const role of roles) {
            const labels = labelsFor(condition, role, delayMs, scheduleId, repetition);
            const startedAtMs = 1_000 + data.length * 37.123456789 + (role === "B" ? 0.5 : 0);
            data.push({
              experimentId: experiment,
              test,
              condition,
              taskId: "user_task_3",
              groupId: `${test}:${condition}:s${scheduleId}:d${delayMs}:r${repetition}`,
              scheduleId,
              delayMs,
              repetition,
              role,
              namespace: `bl/${experiment}/${condition}/s${scheduleId}/d${delayMs}/r${repetition}`,
              key: "banking.send_money",
              ...labels,
              finalAtScoring: labels.recordedLabel === "unresolved" ? false : true,
              score: labels.recordedLabel === "success" ? 1 : labels.recordedLabel === "failure" ? 0 : null,
              measuredDelayMs: delayMs + 0.0123,
              inheritedState: role === "B" && condition === "shared" ? "internal" : "none",
              startedAtMs,
              endpointAtMs: startedAtMs + 1.25,
              scoredAtMs: labels.recordedLabel === null ? null : startedAtMs + 1.5,
              endedAtMs: startedAtMs + 30,
              evidence: json(test === "finality" ? snapshotPending().evidence : sharedPair().b.evidence),
            });
          }
        }
      }
    }
  }
  await db.run.createMany({ data });
  const rows = await db.run.findMany({ where: { experimentId: experiment } });
  return rows.map((r) => ({
    id: r.id,
    condition: r.condition,
    scheduleId: r.scheduleId,
    delayMs: r.delayMs,
    repetition: r.repetition,
    role: r.role,
    endpointLabel: r.endpointLabel,
    terminalLabel: r.terminalLabel,
    recordedLabel: r.recordedLabel,
    exposure: r.exposure,
    classification: r.classification,
  }));
}
/** The oracle: which stored runs a filter set should match. */
export function matching(filters: RunFilters): StoredRun[] {
  return stored.filter(
    (r) =>
      (!filters.condition || r.condition === filters.condition) &&
      (filters.delay === undefined || r.delayMs === filters.delay) &&
      (!filters.role || r.role === filters.role) &&
      (!filters.label || (filters.label === "none" ? r.recordedLabel === null : r.recordedLabel === filters.label)) &&
      (!filters.agreement || agreementOf(r.endpointLabel, r.terminalLabel) === filters.agreement) &&
      (!filters.exposure || r.exposure === (filters.exposure === "exposed")) &&
      (!filters.classification || r.classification === filters.classification),
  );
}

export const ids = (runs: { id: string }[]) => runs.map((r) => r.id).sort();

/** Every page of a listing, following nextCursor; checks the total on each page. */
export async function allPages(filters: RunFilters, limit: number): Promise<RunListRow[]> {
  const seen: RunListRow[] = [];
  let cursor: string | null | undefined;
  for (let pages = 0; pages < 100; pages++) {
    // The cursor travels as the API hands it out: through the query schema.
    const query = runListQuerySchema.parse(cursor ? { cursor } : {});
    const page = await listRuns(db, experimentId, { filters, cursor: query.cursor, limit });
    expect(page.total).toBe(matching(filters).length);
    expect(page.runs.length).toBeLessThanOrEqual(limit);
    seen.push(...page.runs);
    if (!page.nextCursor) return seen;
    cursor = page.nextCursor;
  }
  throw new Error("pagination did not end");
}

export const naturalKey = (r: RunListRow) => [r.condition, r.scheduleId, r.delayMs, r.repetition, r.role] as const;
export function compareNaturalKey(a: RunListRow, b: RunListRow): number {
  const [x, y] = [naturalKey(a), naturalKey(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/** The file's test database with both experiments stored, before its tests; dropped after them. */
export function useStoredRunGrid(): void {
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
    db = database.db;
    const config = replayConfigSchema.parse({
      delaysMs: [25, 0],
      schedules: 2,
      repetitions: 3,
      finalityPolicies: ["snapshot", "reconciliation"],
      separationConditions: ["shared", "no_write"],
    });
    const experiment = await db.experiment.create({
      data: { state: "completed", config: json(config), service: json({ url: "http://127.0.0.1:1", timeOrigin: TIME_ORIGIN }) },
    });
    const other = await db.experiment.create({ data: { state: "completed", config: json(config) } });
    experimentId = experiment.id;
    otherExperimentId = other.id;
    stored = await storeGrid(experimentId, 3);
    await storeGrid(otherExperimentId, 1);
  });
  afterAll(async () => {
    await database?.drop();
  });
}
