import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../../db/prisma";
import type { Prisma } from "../../generated/prisma/client";
import { replayConfigSchema } from "../../replay/rules/config";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { exportResponse } from "./csv";
import { agreementOf } from "./explain";
import { runListQuerySchema, type RunFilters } from "./filters";
import { listRuns, loadRunDetail, runBatches, runsViewExperiment, RUN_EXPORT_COLUMNS, type RunListRow } from "./runs";
import { parseCsv, sharedPair, snapshotPending } from "../../testing/test-support";

// One experiment stored as the replay would (2 policies, 2 conditions, delays {0, 25}, 2 schedules,
// 3 repetitions: 24 finality runs and 24 pairs), and a second one whose runs must never show up.

let database: TestDatabase;
let db: Db;
let experimentId: string;
let otherExperimentId: string;
/** What was inserted, as the list should show it: the oracle the filters are checked against. */
let stored: StoredRun[];

const TIME_ORIGIN = Date.parse("2031-03-01T12:00:00.000Z") + 0.25;
const json = (value: unknown) => value as Prisma.InputJsonValue;

interface StoredRun {
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
function labelsFor(condition: string, role: string, delayMs: number, scheduleId: number, repetition: number) {
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

async function storeGrid(experiment: string, repetitions: number): Promise<StoredRun[]> {
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

/** The oracle: which stored runs a filter set should match. */
function matching(filters: RunFilters): StoredRun[] {
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

const ids = (runs: { id: string }[]) => runs.map((r) => r.id).sort();

/** Every page of a listing, following nextCursor; checks the total on each page. */
async function allPages(filters: RunFilters, limit: number): Promise<RunListRow[]> {
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

const naturalKey = (r: RunListRow) => [r.condition, r.scheduleId, r.delayMs, r.repetition, r.role] as const;
function compareNaturalKey(a: RunListRow, b: RunListRow): number {
  const [x, y] = [naturalKey(a), naturalKey(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

describe("listRuns filters", () => {
  const cases: RunFilters[] = [
    {},
    { condition: "snapshot" },
    { condition: "shared" },
    { condition: "verified_reset" },
    { delay: 0 },
    { delay: 25 },
    { delay: 100 },
    { role: "single" },
    { role: "A" },
    { role: "B" },
    { label: "success" },
    { label: "failure" },
    { label: "unresolved" },
    { label: "none" },
    { agreement: "agree" },
    { agreement: "disagree" },
    { exposure: "exposed" },
    { exposure: "unexposed" },
    { classification: "completed" },
    { classification: "protocol_stop" },
    { classification: "environment_failure" },
    { condition: "snapshot", delay: 25, agreement: "disagree" },
    { role: "B", exposure: "unexposed", label: "success" },
  ];
  for (const filters of cases) {
    it(`narrows to exactly the matching runs: ${JSON.stringify(filters)}`, async () => {
      const expected = matching(filters);
      const page = await listRuns(db, experimentId, { filters, limit: 500 });
      expect(ids(page.runs)).toEqual(ids(expected));
      expect(page.total).toBe(expected.length);
      expect(page.nextCursor).toBeNull();
    });
  }

  it("has matches and misses for every filter value the cases use (the fixture is not degenerate)", () => {
    for (const filters of cases.slice(1)) {
      const n = matching(filters).length;
      if (filters.condition !== "verified_reset" && filters.delay !== 100) expect(n, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(n, JSON.stringify(filters)).toBeLessThan(stored.length);
    }
  });

  it("never shows another experiment's runs", async () => {
    const page = await listRuns(db, experimentId, { filters: {}, limit: 500 });
    expect(page.total).toBe(72);
    expect(page.runs.every((r) => r.experimentId === experimentId)).toBe(true);
    expect((await listRuns(db, otherExperimentId, { filters: {}, limit: 500 })).total).toBe(24);
  });
});

describe("listRuns pagination", () => {
  for (const [filters, limit] of [
    [{}, 7],
    [{}, 1],
    [{ role: "B" }, 5],
    [{ agreement: "disagree" }, 4],
    [{ delay: 25, label: "failure" }, 3],
  ] as const) {
    it(`returns every matching run exactly once, in natural-key order: ${JSON.stringify(filters)} by ${limit}`, async () => {
      const pages = await allPages(filters, limit);
      expect(new Set(pages.map((r) => r.id)).size).toBe(pages.length);
      expect(ids(pages)).toEqual(ids(matching(filters)));
      expect([...pages].sort(compareNaturalKey)).toEqual(pages);
      // Stable: the same listing in one page has the same order.
      expect((await listRuns(db, experimentId, { filters, limit: 500 })).runs.map((r) => r.id)).toEqual(pages.map((r) => r.id));
    });
  }

  it("ends with a null cursor exactly when the last row is shown", async () => {
    const total = matching({ role: "single" }).length;
    const exact = await listRuns(db, experimentId, { filters: { role: "single" }, limit: total });
    expect(exact.runs).toHaveLength(total);
    expect(exact.nextCursor).toBeNull();
    expect((await listRuns(db, experimentId, { filters: { role: "single" }, limit: total - 1 })).nextCursor).not.toBeNull();
  });

  it("shows each run's labels, agreement and times, with its wall-clock start from the service's clock origin", async () => {
    const page = await listRuns(db, experimentId, { filters: { condition: "snapshot", delay: 25, role: "single" }, limit: 1 });
    const run = page.runs[0]!;
    expect(run).toMatchObject({
      condition: "snapshot",
      delayMs: 25,
      scheduleId: 1,
      repetition: 1,
      endpointLabel: "failure",
      terminalLabel: "success",
      recordedLabel: "failure",
      agreement: "disagree",
      exposure: null,
    });
    expect(run.startedAt).toBe(new Date(TIME_ORIGIN + run.startedAtMs).toISOString());
    expect(run.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const elsewhere = await listRuns(db, otherExperimentId, { filters: {}, limit: 1 });
    expect(elsewhere.runs[0]!.startedAt).toBeNull(); // that experiment recorded no service clock origin
  });
});

describe("runBatches and the export", () => {
  async function exported(format: "csv" | "json", filters: RunFilters, batchSize: number): Promise<Response> {
    return exportResponse({
      format,
      batches: runBatches(db, experimentId, filters, batchSize),
      columns: RUN_EXPORT_COLUMNS,
      filename: "runs",
    });
  }

  it("yields every matching run once, in the listing's order, a batch at a time", async () => {
    const batches: RunListRow[][] = [];
    for await (const batch of runBatches(db, experimentId, { delay: 25 }, 5)) batches.push(batch);
    expect(batches.every((b) => b.length <= 5 && b.length > 0)).toBe(true);
    expect(batches.flat().map((r) => r.id)).toEqual(
      (await listRuns(db, experimentId, { filters: { delay: 25 }, limit: 500 })).runs.map((r) => r.id),
    );
  });

  it("writes CSV rows equal to the JSON rows, with a header, parsed back by an RFC 4180 reader", async () => {
    const filters: RunFilters = { condition: "shared" };
    const jsonRows = (await (await exported("json", filters, 4)).json()) as RunListRow[];
    expect(jsonRows).toEqual((await listRuns(db, experimentId, { filters, limit: 500 })).runs);

    const bytes = new Uint8Array(await (await exported("csv", filters, 4)).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...records] = parseCsv(new TextDecoder().decode(bytes));
    expect(header).toEqual([...RUN_EXPORT_COLUMNS]);
    expect(records).toHaveLength(matching(filters).length);
    const cell = (value: unknown) => (value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
    expect(records).toEqual(jsonRows.map((row) => RUN_EXPORT_COLUMNS.map((column) => cell(row[column]))));
    // Service-clock ms are plain numbers, wall-clock times ISO strings.
    const at = (column: (typeof RUN_EXPORT_COLUMNS)[number]) => header!.indexOf(column);
    expect(Number(records[0]![at("startedAtMs")])).toBe(jsonRows[0]!.startedAtMs);
    expect(records[0]![at("startedAt")]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(records[0]![at("exposure")]).toMatch(/^(true|false|)$/);
  });

  it("writes the header alone when nothing matches", async () => {
    const csv = new TextDecoder().decode(await (await exported("csv", { delay: 100 }, 4)).arrayBuffer());
    expect(parseCsv(csv)).toEqual([[...RUN_EXPORT_COLUMNS]]);
    expect(await (await exported("json", { delay: 100 }, 4)).json()).toEqual([]);
  });
});

describe("loadRunDetail", () => {
  it("gives a separation run its pair, open effects with every column, timeline and explanation", async () => {
    const b = stored.find((r) => r.condition === "shared" && r.role === "B" && r.delayMs === 25)!;
    const a = stored.find(
      (r) =>
        r.condition === "shared" && r.role === "A" && r.delayMs === 25 && r.scheduleId === b.scheduleId && r.repetition === b.repetition,
    )!;
    const effect = await db.openEffect.create({
      data: {
        experimentId,
        runId: a.id,
        taskId: "user_task_3",
        groupId: `separation:shared:s${a.scheduleId}:d25:r${a.repetition}`,
        tracePosition: 1,
        action: "send_money",
        arguments: { recipient: "GB29", amount: 100 },
        initiatedAtMs: 1000.4,
        resource: "http://127.0.0.1:1/v1/values?namespace=ns&key=banking.send_money",
        controller: "delayed-write service",
        observationHandle: "op_detail",
        endpointStatus: "pending",
        possibleTransitions: { from: "pending", to: ["completed", "failed", "cancelled"] },
        relevantUntilMs: 1025.4,
        crossRunRoute: "ns:banking.send_money is shared with run B of this pair",
        terminalStatus: "completed",
        terminalEvidence: { operation: { handle: "op_detail", status: "completed" }, read: null, cancelOutcome: null },
        resolvedAtMs: 1025.41,
      },
    });
    const detailB = await loadRunDetail(db, b.id);
    expect(detailB!.pairedRun).toEqual({ id: a.id, role: "A" });
    expect(detailB!.openEffects).toEqual([]);
    expect(detailB!.run).toMatchObject({ id: b.id, role: "B", exposure: true, taskId: "user_task_3", key: "banking.send_money" });
    expect(detailB!.experiment).toEqual({ id: experimentId, name: null, state: "completed" });
    expect(detailB!.timeline.map((e) => e.kind)).toContain("scoring");
    expect(detailB!.explanation.summary).toMatch(/^Shared state: A's write \(25 ms delay\) was still pending/);

    const detailA = await loadRunDetail(db, a.id);
    expect(detailA!.pairedRun).toEqual({ id: b.id, role: "B" });
    expect(detailA!.openEffects).toEqual([effect]);
  });

  it("has no pair for a finality run, and null for an unknown id", async () => {
    const single = stored.find((r) => r.role === "single")!;
    expect((await loadRunDetail(db, single.id))!.pairedRun).toBeNull();
    expect(await loadRunDetail(db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

describe("runsViewExperiment", () => {
  it("offers the experiment's delays (sorted) and conditions, and is null for an unknown experiment", async () => {
    expect(await runsViewExperiment(db, experimentId)).toEqual({
      id: experimentId,
      name: null,
      state: "completed",
      delaysMs: [0, 25],
      conditions: ["snapshot", "reconciliation", "shared", "no_write"],
    });
    expect(await runsViewExperiment(db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});
