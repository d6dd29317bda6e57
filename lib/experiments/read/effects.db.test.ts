import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../../db/prisma";
import type { Prisma } from "../../generated/prisma/client";
import { replayConfigSchema } from "../../replay/rules/config";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { exportResponse } from "./csv";
import { effectBatches, EFFECT_EXPORT_COLUMNS, experimentsWithEffects, listEffects, type EffectListRow } from "./effects";
import { effectListQuerySchema, type EffectFilters } from "./filters";
import { parseCsv } from "../../testing/test-support";

// Two experiments with open-effects records of every terminal and endpoint status, some unresolved,
// with service times that share a millisecond or need every digit of a double to order them.

let database: TestDatabase;
let db: Db;
let experiments: string[];
let stored: { id: string; experimentId: string; terminalStatus: string; endpointStatus: string }[];

const TIME_ORIGIN = Date.parse("2031-03-01T12:00:00.000Z");
const json = (value: unknown) => value as Prisma.InputJsonValue;
const TERMINAL = ["completed", "cancelled", "unresolved", "failed", "completed"] as const;
const ENDPOINT = ["pending", "completed", "pending"] as const;

async function storeEffects(experimentId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const run = await db.run.create({
      data: {
        experimentId,
        test: "finality",
        condition: "snapshot",
        taskId: "user_task_3",
        groupId: `g${i}`,
        scheduleId: 1,
        delayMs: 25,
        repetition: i + 1,
        role: "single",
        namespace: `ns${i}`,
        key: "banking.send_money",
        classification: "completed",
        inheritedState: "none",
        startedAtMs: 1000 + i,
        evidence: {},
      },
    });
    const terminalStatus = TERMINAL[i % TERMINAL.length]!;
    await db.openEffect.create({
      data: {
        experimentId,
        runId: run.id,
        taskId: "user_task_3",
        groupId: `g${i}`,
        tracePosition: 1,
        // Text a spreadsheet must read as text, and that CSV must quote.
        action: i === 0 ? "=cmd|' /C calc'!A0" : "send_money",
        arguments: { recipient: 'GB29, "NWBK"', amount: i },
        // Pairs of records share a service millisecond; the fraction needs full double precision.
        initiatedAtMs: 1000 + Math.floor(i / 2) + 0.123456789012345,
        resource: `http://127.0.0.1:1/v1/values?namespace=ns${i}&key=banking.send_money`,
        controller: "delayed-write service",
        observationHandle: `op_${experimentId.slice(0, 8)}_${i}`,
        endpointStatus: ENDPOINT[i % ENDPOINT.length]!,
        possibleTransitions: { from: "pending", to: ["completed", "failed", "cancelled"] },
        relevantUntilMs: i % 4 === 0 ? null : 1025.5 + i,
        crossRunRoute: "none: namespace\r\nbelongs to this trial alone",
        terminalStatus,
        terminalEvidence:
          terminalStatus === "unresolved"
            ? { operation: { status: "pending" }, read: null, cancelOutcome: null }
            : { operation: { status: terminalStatus }, read: null, cancelOutcome: null },
        resolvedAtMs: terminalStatus === "unresolved" ? null : 1026 + i,
      },
    });
  }
}

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  const config = json(replayConfigSchema.parse({ delaysMs: [25], schedules: 1, repetitions: 20 }));
  const first = await db.experiment.create({
    data: {
      state: "completed",
      config,
      createdAt: new Date(TIME_ORIGIN),
      service: json({ url: "http://127.0.0.1:1", timeOrigin: TIME_ORIGIN }),
    },
  });
  const second = await db.experiment.create({ data: { state: "completed", config, createdAt: new Date(TIME_ORIGIN + 1_000) } });
  const empty = await db.experiment.create({ data: { state: "completed", config } });
  experiments = [first.id, second.id, empty.id];
  await storeEffects(first.id, 17);
  await storeEffects(second.id, 9);
  stored = await db.openEffect.findMany({ select: { id: true, experimentId: true, terminalStatus: true, endpointStatus: true } });
});
afterAll(async () => {
  await database?.drop();
});

function matching(filters: EffectFilters) {
  return stored.filter(
    (e) =>
      (!filters.experiment || e.experimentId === filters.experiment) &&
      (!filters.terminal || e.terminalStatus === filters.terminal) &&
      (!filters.endpoint || e.endpointStatus === filters.endpoint),
  );
}
const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

async function allPages(filters: EffectFilters, limit: number): Promise<EffectListRow[]> {
  const seen: EffectListRow[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const query = effectListQuerySchema.parse(cursor ? { cursor } : {});
    const page = await listEffects(db, { filters, cursor: query.cursor, limit });
    const expected = matching(filters);
    expect(page.total).toBe(expected.length);
    expect(page.unresolved).toBe(expected.filter((e) => e.terminalStatus === "unresolved").length);
    seen.push(...page.effects);
    if (!page.nextCursor) return seen;
    cursor = page.nextCursor;
  }
  throw new Error("pagination did not end");
}

describe("listEffects", () => {
  const cases: EffectFilters[] = [
    {},
    { terminal: "unresolved" },
    { terminal: "completed" },
    { endpoint: "pending" },
    { endpoint: "cancelled" },
    { terminal: "cancelled", endpoint: "completed" },
  ];

  for (const filters of cases) {
    it(`narrows to exactly the matching records: ${JSON.stringify(filters)}`, async () => {
      const page = await listEffects(db, { filters, limit: 500 });
      expect(ids(page.effects)).toEqual(ids(matching(filters)));
      expect(page.total).toBe(matching(filters).length);
    });
  }

  it("narrows to one experiment", async () => {
    for (const experiment of experiments) {
      const page = await listEffects(db, { filters: { experiment }, limit: 500 });
      expect(ids(page.effects)).toEqual(ids(matching({ experiment })));
      expect(page.effects.every((e) => e.experimentId === experiment)).toBe(true);
    }
    expect((await listEffects(db, { filters: { experiment: experiments[2]! }, limit: 5 })).total).toBe(0);
  });

  for (const [filters, limit] of [
    [{}, 4],
    [{}, 1],
    [{ endpoint: "pending" }, 3],
  ] as const) {
    it(`pages every record exactly once, unresolved first, in a stable order: ${JSON.stringify(filters)} by ${limit}`, async () => {
      const pages = await allPages(filters, limit);
      expect(new Set(pages.map((e) => e.id)).size).toBe(pages.length);
      expect(ids(pages)).toEqual(ids(matching(filters)));
      const firstResolved = pages.findIndex((e) => e.terminalStatus !== "unresolved");
      const lastUnresolved = pages.findLastIndex((e) => e.terminalStatus === "unresolved");
      expect(lastUnresolved).toBeGreaterThanOrEqual(0);
      expect(lastUnresolved).toBeLessThan(firstResolved);
      expect((await listEffects(db, { filters, limit: 500 })).effects.map((e) => e.id)).toEqual(pages.map((e) => e.id));
    });
  }

  it("shows every Table C.1 field, the run's cell, and wall-clock times from the service's clock origin", async () => {
    const page = await listEffects(db, { filters: { experiment: experiments[0]!, terminal: "completed" }, limit: 1 });
    const effect = page.effects[0]!;
    const row = await db.openEffect.findUniqueOrThrow({ where: { id: effect.id }, include: { run: true } });
    const { run, ...columns } = row;
    expect(effect).toMatchObject({
      ...columns,
      runCondition: run.condition,
      runDelayMs: run.delayMs,
      runScheduleId: run.scheduleId,
      runRepetition: run.repetition,
      runRole: run.role,
    });
    expect(effect.initiatedAt).toBe(new Date(TIME_ORIGIN + effect.initiatedAtMs).toISOString());
    expect(effect.resolvedAt).toBe(new Date(TIME_ORIGIN + effect.resolvedAtMs!).toISOString());
    const elsewhere = await listEffects(db, { filters: { experiment: experiments[1]! }, limit: 1 });
    expect(elsewhere.effects[0]!.initiatedAt).toBeNull();
  });
});

describe("effect export", () => {
  const exported = (format: "csv" | "json", filters: EffectFilters) =>
    exportResponse({ format, batches: effectBatches(db, filters, 4), columns: EFFECT_EXPORT_COLUMNS, filename: "open-effects" });

  it("writes CSV rows equal to the JSON rows: quoted commas, quotes and line breaks, formulas neutralised", async () => {
    const jsonRows = (await (await exported("json", {})).json()) as EffectListRow[];
    expect(jsonRows).toEqual((await listEffects(db, { filters: {}, limit: 500 })).effects);

    // TextDecoder consumes the BOM, as a spreadsheet does.
    const [header, ...records] = parseCsv(new TextDecoder().decode(await (await exported("csv", {})).arrayBuffer()));
    expect(header).toEqual([...EFFECT_EXPORT_COLUMNS]);
    expect(records).toHaveLength(stored.length);
    const cell = (value: unknown) => {
      if (value === null) return "";
      const text = typeof value === "object" ? JSON.stringify(value) : String(value);
      return typeof value === "string" && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    };
    expect(records).toEqual(jsonRows.map((row) => EFFECT_EXPORT_COLUMNS.map((column) => cell(row[column]))));
    const at = (column: (typeof EFFECT_EXPORT_COLUMNS)[number]) => EFFECT_EXPORT_COLUMNS.indexOf(column);
    expect(records.map((r) => r[at("crossRunRoute")])).toContain("none: namespace\r\nbelongs to this trial alone");
    expect(records.map((r) => r[at("action")])).toContain("'=cmd|' /C calc'!A0");
    expect(JSON.parse(records[0]![at("arguments")]!)).toEqual(jsonRows[0]!.arguments);
    expect(Number(records[0]![at("initiatedAtMs")])).toBe(jsonRows[0]!.initiatedAtMs);
  });

  it("exports only the filtered records", async () => {
    const rows = (await (await exported("json", { terminal: "unresolved" })).json()) as EffectListRow[];
    expect(ids(rows)).toEqual(ids(matching({ terminal: "unresolved" })));
  });
});

describe("experimentsWithEffects", () => {
  it("lists the experiments that left records, newest first", async () => {
    expect((await experimentsWithEffects(db)).map((e) => e.id)).toEqual([experiments[1], experiments[0]]);
  });
});
