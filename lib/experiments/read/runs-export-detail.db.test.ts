import { describe, expect, it } from "vitest";
import { exportResponse } from "./csv";
import { type RunFilters } from "./filters";
import { listRuns, loadRunDetail, runBatches, runsViewExperiment, RUN_EXPORT_COLUMNS, type RunListRow } from "./runs";
import { parseCsv } from "../../testing/test-support";
import { db, experimentId, matching, stored, useStoredRunGrid } from "../../testing/run-list-fixtures";

// The run list's export in batches (CSV and JSON), one run's detail, and the runs view of an experiment, on the stored grid of lib/testing/run-list-fixtures.ts.

useStoredRunGrid();
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
