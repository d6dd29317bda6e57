import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { seededRandom } from "../../testing/seeded-random";
import { separationReference, storedSeparation } from "../../testing/separation-reference";
import { useTestDatabase } from "../../testing/use-test-database";
import { ingestRuns } from "../ingest/ingest-runs";
import { createEvaluation } from "../manage/create-evaluation";
import type { RunRecord } from "../run-record-schema";

// Runs stored one a batch, as live runs' scores store them, on surfaces with verified resets: each
// recomputes those surfaces, and writes only the links that grew, or recomputes the units when a
// reset cut a link short. Either way the store must equal the rules applied to every surface's history.
let db: Db;

useTestDatabase((database) => (db = database.db));

const BASE = Date.parse("2026-12-01T10:00:00Z");
const at = (ms: number) => new Date(BASE + ms).toISOString();

function run(id: string, parts: Pick<RunRecord, "touches" | "effects" | "resets"> & { scoredMs?: number }): RunRecord {
  const { scoredMs = 1_000, ...rest } = parts;
  return { externalId: id, taskId: "t", startedAt: at(0), scoredAt: at(scoredMs), endpointLabel: "success", ...rest };
}

const unitOf = async (evaluationId: string, externalId: string) =>
  (
    await db.$queryRaw<
      { unit: string }[]
    >`SELECT analysis_unit::text AS unit FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}`
  )[0]!.unit;

describe("a recompute after a run stored alone", () => {
  it("adds the links a new run brings, and splits the unit when a later run's reset cuts a link short", async () => {
    const id = await createEvaluation(db, { name: "growth" }, null);
    const store = async (record: RunRecord) => {
      expect(await ingestRuns(db, id, [record])).toEqual([{ externalId: record.externalId, status: "created" }]);
      expect(await storedSeparation(db, id)).toEqual(await separationReference(db, id));
    };
    await store(run("first", { resets: [{ surface: "s", at: at(0), verified: true }] }));
    await store(run("writer", { touches: [{ surface: "s", op: "write", at: at(10) }] }));
    await store(run("reader", { touches: [{ surface: "s", op: "read", at: at(30) }] }));
    expect(await unitOf(id, "reader")).toBe(await unitOf(id, "writer"));
    // A verified reset at 20 ends the write of 10 before the read of 30: the link is gone, the unit splits.
    await store(run("resetter", { resets: [{ surface: "s", at: at(20), verified: true }] }));
    expect(await unitOf(id, "reader")).not.toBe(await unitOf(id, "writer"));
  });

  it("equals the rules on every surface's history, run after run, with resets landing anywhere in time", async () => {
    const id = await createEvaluation(db, { name: "growth, random", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
    const random = seededRandom(53);
    const surface = () => `acct:${Math.floor(random() * 40)}`;
    const time = () => 1 + Math.floor(random() * 900);
    const runs = Array.from({ length: 70 }, (_, i) =>
      run(`r${i}`, {
        touches: Array.from({ length: Math.floor(random() * 4) }, () => ({
          surface: surface(),
          op: random() < 0.5 ? ("write" as const) : ("read" as const),
          at: at(time()),
          ...(random() < 0.05 && { public: true }),
        })),
        effects: Array.from({ length: Math.floor(random() * 2) }, (_, k) => {
          const requested = time();
          return {
            effectId: `e${k}`,
            tool: "bank.transfer",
            surface: surface(),
            handle: `h-${i}-${k}`,
            requestedAt: at(requested),
            acknowledgedAt: at(requested + 5),
            statusAtScoring: random() < 0.5 ? ("pending" as const) : ("completed" as const),
          };
        }),
        resets: random() < 0.4 ? [{ surface: surface(), at: at(time()), verified: random() < 0.7 }] : [],
      }),
    );
    for (const [i, record] of runs.entries()) {
      expect(await ingestRuns(db, id, [record])).toEqual([{ externalId: record.externalId, status: "created" }]);
      if (i % 10 === 9) expect(await storedSeparation(db, id)).toEqual(await separationReference(db, id));
    }
    const final = await storedSeparation(db, id);
    expect(final).toEqual(await separationReference(db, id));
    // Enough linking and separating to test something: a unit of several runs, and many runs apart.
    expect(final.units.length).toBeGreaterThan(0);
    expect(new Set(final.runs.map((r) => r.unit)).size).toBeGreaterThan(10);
  });

  it("equals the rules when runs made one after another each reset their surfaces first, the latest epoch kept by its stats", async () => {
    const id = await createEvaluation(db, { name: "epochs", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
    const random = seededRandom(1216);
    const surface = () => `acct:${Math.floor(random() * 6)}`;
    for (let i = 0; i < 80; i++) {
      // Each run in its own window, after the one before, but one in ten lands inside an earlier window.
      const start = random() < 0.1 ? Math.floor(random() * i) * 100 : i * 100;
      const time = () => start + 10 + Math.floor(random() * 60);
      const record = run(`r${i}`, {
        scoredMs: start + 80,
        resets: Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({
          surface: surface(),
          at: at(start + 5),
          verified: random() < 0.9,
        })),
        touches: Array.from({ length: Math.floor(random() * 4) }, () => ({
          surface: surface(),
          op: random() < 0.5 ? ("write" as const) : ("read" as const),
          at: at(time()),
        })),
        effects: Array.from({ length: Math.floor(random() * 2) }, (_, k) => {
          const requested = time();
          const settled = random() < 0.85;
          return {
            effectId: `e${k}`,
            tool: "bank.transfer",
            surface: surface(),
            handle: `h-${i}-${k}`,
            requestedAt: at(requested),
            acknowledgedAt: at(requested + 2),
            statusAtScoring: settled ? ("completed" as const) : ("pending" as const),
          };
        }),
      });
      expect(await ingestRuns(db, id, [record])).toEqual([{ externalId: record.externalId, status: "created" }]);
      if (i % 8 === 7) expect(await storedSeparation(db, id)).toEqual(await separationReference(db, id));
    }
    expect(await storedSeparation(db, id)).toEqual(await separationReference(db, id));
    // The stats decide surfaces with a reset: the epoch path was taken.
    const [epochs] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM evaluation_surfaces WHERE evaluation_id = ${id}::uuid AND epoch_start_at IS NOT NULL AND NOT recompute`;
    expect(epochs!.n).toBeGreaterThan(0);
  });
});
