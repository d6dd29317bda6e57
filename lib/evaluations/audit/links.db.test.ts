import { describe, expect, it } from "vitest";
import { poolOf, type Db } from "../../db/prisma";
import { sqlTransaction } from "../../db/sql-transaction";
import { Prisma } from "../../generated/prisma/client";
import { seededRandom } from "../../testing/seeded-random";
import { useTestDatabase } from "../../testing/use-test-database";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "../ingest/ingest-runs";
import { INHERITED_STATES, type InheritedState } from "../vocabulary";
import type { RunRecord } from "../run-record-schema";
import { morePublic, mostPublicInheritedSql } from "../../replay/rules/inherited-state";
import { surfaceRunSpans } from "../separation";
import { linkCandidateRuns, type LinkableRange } from "./links";
import { storedLinkCandidates } from "./separation-incremental";
import { surfaceHistories } from "./separation-recompute";

// The linking rules that stay set-based SQL, for speed, checked against the pure functions they mirror.
let db: Db;

useTestDatabase((database) => (db = database.db));

const BASE_MS = Date.UTC(2026, 11, 1, 10);
const SURFACES = ["db:a", "db:b", "db:c"];

/** Runs `i` on three surfaces, times on a one-second grid so that a range's ends often fall on an event: writes (touches and effects), reads, scoredOn; some runs unscored. */
function run(i: number, random: () => number): RunRecord {
  const int = (n: number) => Math.floor(random() * n);
  const second = (s: number) => new Date(BASE_MS + s * 1_000).toISOString();
  const surface = () => SURFACES[int(SURFACES.length)]!;
  const unscored = random() < 0.15;
  return {
    externalId: `run-${i}`,
    taskId: `task-${i % 5}`,
    startedAt: second(0),
    ...(unscored
      ? { unscoredReason: "no score" }
      : { scoredAt: second(int(30)), endpointLabel: "success" as const, ...(random() < 0.3 ? { scoredOn: [surface()] } : {}) }),
    touches: Array.from({ length: int(4) }, () => ({
      surface: surface(),
      op: random() < 0.5 ? ("read" as const) : ("write" as const),
      at: second(int(30)),
    })),
    effects: Array.from({ length: int(2) }, (_, k) => ({
      effectId: `e${k}`,
      tool: "bank.transfer",
      surface: surface(),
      requestedAt: second(int(30)),
      statusAtScoring: "pending" as const,
    })),
  };
}

describe("the set-based linking SQL", () => {
  it("finds the stored runs in a LinkableRange that linkCandidateRuns names, with the spans surfaceRunSpans gives", async () => {
    const random = seededRandom(5);
    const id = await createEvaluation(db, { name: "link candidates" }, null);
    const results = await ingestRuns(
      db,
      id,
      Array.from({ length: 60 }, (_, i) => run(i, random)),
      { traces: "caller" },
    );
    expect(results.every((r) => r.status === "created")).toBe(true);
    const histories = new Map((await surfaceHistories(db, id, SURFACES)).map((h) => [h.surface, h]));
    expect([...histories.keys()].sort()).toEqual(SURFACES);

    let compared = 0;
    for (const history of histories.values()) {
      const runIds = [...new Set([...history.writes, ...history.reads].map((e) => e.runId))];
      const times = [
        ...history.writes.flatMap((w) => [w.atMs, ...(w.runScoredAtMs === null ? [] : [w.runScoredAtMs])]),
        ...history.reads.map((r) => r.atMs),
      ];
      // An end on an event, between two, or open.
      const end = () => (random() < 0.15 ? null : times[Math.floor(random() * times.length)]! + (random() < 0.3 ? 500 : 0));
      for (let k = 0; k < 25; k++) {
        const range: LinkableRange = {
          surface: history.surface,
          epochStartMs: random() < 0.5 ? null : end(),
          readLoMs: end(),
          readHiMs: end(),
          writeLoMs: end(),
          writeHiMs: end(),
          explicit: runIds.filter(() => random() < 0.05),
        };
        const batch = runIds.filter(() => random() < 0.1);
        const spans = new Map(surfaceRunSpans(history).map((s) => [s.runId, s]));
        const expected = [...linkCandidateRuns(range, history)]
          .filter((runId) => !batch.includes(runId))
          .map((runId) => ({
            surface: history.surface,
            runId,
            firstWriteMs: spans.get(runId)?.firstWriteMs ?? null,
            lastReadMs: spans.get(runId)?.lastReadMs ?? null,
          }));
        const found = (await sqlTransaction(poolOf(db), (tx) => storedLinkCandidates(tx, id, [range], batch))).map(
          ({ surface, runId, firstWriteMs, lastReadMs }) => ({
            surface,
            runId,
            firstWriteMs,
            lastReadMs,
          }),
        );
        const byRun = (a: { runId: string }, b: { runId: string }) => Number(a.runId) - Number(b.runId);
        expect(found.sort(byRun), JSON.stringify(range)).toEqual(expected.sort(byRun));
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("takes the most public inherited state of a run's links as separation.ts's morePublic does", async () => {
    // Every non-empty set of states, each a group of rows.
    const sets = Array.from({ length: 2 ** INHERITED_STATES.length - 1 }, (_, mask) =>
      INHERITED_STATES.filter((_, bit) => ((mask + 1) >> bit) & 1),
    );
    const rows = sets.flatMap((states, group) => states.map((state) => Prisma.sql`(${group}::int, ${state}::text)`));
    const answered = await db.$queryRaw<{ g: number; state: InheritedState }[]>`
      SELECT g, ${Prisma.raw(mostPublicInheritedSql("s"))} AS state FROM (VALUES ${Prisma.join(rows)}) AS v(g, s) GROUP BY g ORDER BY g`;
    expect(answered.map((r) => r.state)).toEqual(sets.map((states) => states.reduce(morePublic)));
    expect(answered.map((r) => r.state)).toEqual(["none", "internal", "internal", "public", "public", "public", "public"]);
  });
});
