import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { appendResolution } from "./append-resolution";
import { createEvaluation } from "./create-evaluation";
import { ingestRuns } from "./ingest";
import { setEffectPolicy } from "./set-effect-policy";
import { evaluationSummary } from "./summary";

// The worked example of docs/evaluations.md, stored and audited on a real PostgreSQL.
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s)).toISOString();
const SURFACE = "service:banking.balance";
const worked = () => [
  {
    externalId: "r1", taskId: "t1", startedAt: at(0), scoredAt: at(5), endpointLabel: "success",
    effects: [{ effectId: "e1", tool: "bank.transfer", handle: "tx-1", surface: SURFACE, requestedAt: at(1), statusAtScoring: "pending" }],
  },
  {
    externalId: "r2", taskId: "t1", startedAt: at(10), scoredAt: at(15), endpointLabel: "success", terminalLabel: "failure",
    touches: [{ surface: SURFACE, op: "read", at: at(11) }],
    effects: [{ effectId: "e2", tool: "bank.transfer", handle: "tx-2", surface: SURFACE, requestedAt: at(12), statusAtScoring: "pending", resolution: { status: "completed", at: at(13), evidence: { ledger: 8813 } } }],
  },
  { externalId: "r3", taskId: "t1", startedAt: at(20), scoredAt: at(25), endpointLabel: "success", touches: [{ surface: SURFACE, op: "read", at: at(21) }] },
];

describe("an evaluation, stored and audited", () => {
  it("ingests the worked example idempotently, appends a late resolution, and answers the figures by hand", async () => {
    const id = await createEvaluation(db, { name: "worked example", effectPolicy: { tools: { "bank.transfer": "async_handle", "bank.read": "read_only" } } }, null);
    expect(await ingestRuns(db, id, worked())).toEqual(["r1", "r2", "r3"].map((externalId) => ({ externalId, status: "created" })));
    const first = await evaluationSummary(db, id);
    expect(first).toMatchObject({
      effectPolicyVersion: 1,
      runs: 3,
      reported: { successes: 3, n: 3 },
      final: { successes: 2, n: 2 },
      unresolved: { n: 1, byReason: { pending_at_scoring: 1 }, byTool: { "bank.transfer": 1 } },
      disagreements: { n: 1, of: 1 },
      bounds: { lower: { successes: 2, n: 3 }, upper: { successes: 3, n: 3 } },
      units: { runRows: 3, analysisUnits: 1, largest: 3 },
      exposures: { n: 2, of: 3 },
    });
    // The same batch again changes nothing.
    const rowsBefore = await db.evaluationRun.findMany({ orderBy: { id: "asc" } });
    expect((await ingestRuns(db, id, worked())).map((r) => r.status)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(await db.evaluationRun.findMany({ orderBy: { id: "asc" } })).toEqual(rowsBefore);
    expect(await evaluationSummary(db, id)).toEqual(first);

    // Late evidence: r1's transfer completed at 10:00:08, after it was scored at 10:00:05.
    await appendResolution(db, id, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812", verifiedBy: "reconciler" }, null);
    const late = await evaluationSummary(db, id);
    expect(late.unresolved).toEqual({ n: 1, byReason: { resolved_after_scoring: 1 }, byTool: { "bank.transfer": 1 } });
    expect(await db.evaluationEffectResolution.count({ where: { evaluationId: id } })).toBe(2);

    // A verified reset before r3 (after both writes settled) makes r3 its own unit; an update is reported as such.
    const withReset = worked();
    Object.assign(withReset[2]!, { resets: [{ surface: SURFACE, at: at(20), verified: true, evidence: "read back 100" }] });
    expect((await ingestRuns(db, id, withReset)).map((r) => r.status)).toEqual(["unchanged", "unchanged", "updated"]);
    expect((await evaluationSummary(db, id)).units).toEqual({ runRows: 3, analysisUnits: 2, largest: 2 });
    // r1's write settled at 10:00:08 only now that evidence came; the posted resolution survived the update.
    expect(await db.evaluationEffectResolution.count({ where: { evaluationId: id, source: "posted" } })).toBe(1);

    // A new policy version recomputes finality: bank.transfer read-only makes every run final.
    expect(await setEffectPolicy(db, id, { tools: { "bank.*": "read_only" } }, null)).toEqual({ version: 2 });
    expect(await evaluationSummary(db, id)).toMatchObject({ effectPolicyVersion: 2, final: { successes: 3, n: 3 }, unresolved: { n: 0 } });
    expect(await db.evaluationEffectPolicy.count({ where: { evaluationId: id } })).toBe(2);
  });

  it("stores the good runs of a batch and nothing of a bad one, naming its index and field", async () => {
    const id = await createEvaluation(db, { name: "bad input" }, null);
    const runs: unknown[] = worked();
    (runs[1] as { effects: { requestedAt: string }[] }).effects[0]!.requestedAt = at(9); // before r2 started at 10
    const results = await ingestRuns(db, id, runs);
    expect(results[1]).toEqual({ externalId: "r2", status: "error", error: { code: "invalid_run", field: "runs.1.effects.0.requestedAt", message: expect.stringContaining("runs.1.effects.0.requestedAt") } });
    expect(results.filter((r) => r.status === "created").map((r) => r.externalId)).toEqual(["r1", "r3"]);
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(2);
    expect(await db.evaluationEffect.count({ where: { evaluationId: id } })).toBe(1);
  });
});
