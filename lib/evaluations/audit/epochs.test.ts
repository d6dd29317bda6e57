import { describe, expect, it } from "vitest";
import { seededRandom } from "../../testing/seeded-random";
import {
  epochSurfaceStats,
  linkWithoutResets,
  surfaceLinkGroups,
  surfaceRunSpans,
  type SurfaceHistory,
  type SurfaceStats,
} from "../separation";
import type { RunRecord } from "../run-record-schema";
import { batchSurface, batchSurfaces, mergeSurfaceStats } from "./links";

// The fast path on a surface with resets that break routes: the stats of its latest epoch decide the
// links of the runs in it, and a batch either falls in that epoch, opens a new one, or sends the surface
// to the recompute. Held here to the sweep over the whole history (separation.ts, surfaceLinkGroups).

type Write = SurfaceHistory["writes"][number];
type Read = SurfaceHistory["reads"][number];
type Reset = SurfaceHistory["resets"][number];
const history = (writes: Write[], reads: Read[], resets: Reset[], isPublic = false): SurfaceHistory => ({
  surface: "acct:1",
  public: isPublic,
  writes,
  reads,
  resets,
});
const join = (a: SurfaceHistory, b: SurfaceHistory): SurfaceHistory =>
  history([...a.writes, ...b.writes], [...a.reads, ...b.reads], [...a.resets, ...b.resets], a.public || b.public);
const w = (runId: string, atMs: number, runScoredAtMs: number | null, settledAtMs = atMs): Write => ({
  runId,
  atMs,
  settledAtMs,
  runScoredAtMs,
});
const verified = (atMs: number): Reset => ({ atMs, verified: true });

/** Each run's link as the sweep gives it: `run:inherited`, for runs in a group. */
const sweepLinks = (h: SurfaceHistory) =>
  new Map(surfaceLinkGroups(h).flatMap((g) => g.members.map((m) => [m.runId, m.inherited] as const)));

describe("a surface's latest epoch", () => {
  it("starts at its latest reset that breaks routes, and counts only what happened after it", () => {
    const h = history(
      [w("1", 5, 9), w("2", 30, 40)],
      [{ runId: "3", atMs: 45 }],
      [verified(20), verified(10), { atMs: 25, verified: false }],
    );
    expect(epochSurfaceStats(h)).toEqual({
      firstWrite: { atMs: 30, runId: "2" },
      secondWriteMs: null,
      lastRead: { atMs: 45, runId: "3" },
      secondReadMs: 40,
      public: false,
      epochStartMs: 20,
      horizonMs: 45,
      recompute: false,
    });
  });

  it("is not decided by its stats when a write before it is still live after it, predates its evidence, or a run has events on both sides", () => {
    const carried = history([w("1", 5, 9, 25)], [], [verified(20)]);
    const straddling = history([w("1", 5, 30)], [], [verified(20)]);
    const predated = history([w("1", 30, 35, 29)], [], [verified(20)]);
    expect([carried, straddling, predated].map((h) => epochSurfaceStats(h).recompute)).toEqual([true, true, true]);
    // Settled at the reset's instant: ended by it.
    expect(epochSurfaceStats(history([w("1", 5, 9, 20)], [], [verified(20)])).recompute).toBe(false);
  });
});

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1) + ms).toISOString();

describe("a batch on a surface with an epoch", () => {
  it("collects each run's span and the batch's public marks per surface (an effect's write, scoredOn as a read at scoring)", () => {
    const runs: { id: string; run: RunRecord }[] = [
      {
        id: "7",
        run: {
          externalId: "a",
          taskId: "t",
          startedAt: at(0),
          scoredAt: at(9_000),
          endpointLabel: "success",
          effects: [{ effectId: "e", tool: "x", surface: "p", requestedAt: at(2_000), statusAtScoring: "pending", public: true }],
        },
      },
      { id: "8", run: { externalId: "b", taskId: "t", startedAt: at(0), scoredAt: at(12_000), endpointLabel: "failure", scoredOn: ["p"] } },
    ];
    expect(Object.fromEntries(batchSurfaces(runs))).toEqual({
      p: {
        spans: [
          { runId: "7", firstWriteMs: Date.parse(at(2_000)), lastReadMs: Date.parse(at(9_000)) },
          { runId: "8", firstWriteMs: null, lastReadMs: Date.parse(at(12_000)) },
        ],
        public: true,
        breakingResets: null,
        firstEventMs: Date.parse(at(2_000)),
        // The pending effect may still land.
        horizonMs: Number.POSITIVE_INFINITY,
        predated: false,
      },
    });
  });

  const stored = epochSurfaceStats(history([w("1", 30, 40)], [{ runId: "2", atMs: 50 }], [verified(20)]));
  const merged = (batch: SurfaceHistory) => mergeSurfaceStats(stored, batchSurface(batch));

  it("falls in the epoch when its events are all after the epoch's start, and a reset at that start changes nothing", () => {
    expect(merged(history([], [{ runId: "3", atMs: 21 }], [verified(20)]))).toMatchObject({
      epochStartMs: 20,
      horizonMs: 50,
      recompute: false,
    });
    expect(merged(history([], [{ runId: "3", atMs: 20 }], [])).recompute).toBe(true);
  });

  it("opens a new epoch when it resets after every stored event and settlement, with its own events after its last reset", () => {
    expect(merged(history([w("3", 70, 80)], [], [verified(60), verified(65)]))).toEqual({
      firstWrite: { atMs: 70, runId: "3" },
      secondWriteMs: null,
      lastRead: { atMs: 80, runId: "3" },
      secondReadMs: null,
      public: false,
      epochStartMs: 65,
      horizonMs: 80,
      recompute: false,
    });
    // At the stored horizon (the read at 50), or with an event of the batch before its reset: recomputed.
    expect(merged(history([w("3", 70, 80)], [], [verified(50)])).recompute).toBe(true);
    expect(merged(history([w("3", 58, 80)], [], [verified(60)])).recompute).toBe(true);
    // A write that may still land holds the horizon open.
    const open = epochSurfaceStats(history([w("1", 30, 40, Number.POSITIVE_INFINITY)], [], [verified(20)]));
    expect(open.horizonMs).toBe(Number.POSITIVE_INFINITY);
    expect(mergeSurfaceStats(open, batchSurface(history([w("3", 70, 80)], [], [verified(60)]))).recompute).toBe(true);
  });

  it("agrees with the sweep over the whole history, batch after batch, on random histories with resets", () => {
    const random = seededRandom(2612);
    const int = (n: number) => Math.floor(random() * n);
    const outcomes = { fast: 0, opened: 0, recomputed: 0 };
    for (let trial = 0; trial < 400; trial++) {
      let whole = history([], [], []);
      let stats: SurfaceStats | undefined;
      let nextRun = 1;
      for (let b = 0; b < 6; b++) {
        // Most batches start after what came before (runs made one after another), some anywhere: ties are common.
        const base = random() < 0.7 ? b * 20 : int(b * 20 + 1);
        const writes: Write[] = [];
        const reads: Read[] = [];
        const resets: Reset[] = [];
        for (let r = 0, runs = 1 + int(3); r < runs; r++) {
          const runId = String(nextRun++);
          const scored = random() < 0.1 ? null : base + 12 + int(8);
          if (random() < 0.4) resets.push({ atMs: base + int(4), verified: random() < 0.8, canarySurvived: random() < 0.1 });
          for (let e = int(4); e > 0; e--) {
            const atMs = base + 2 + int(12);
            if (random() < 0.5) reads.push({ runId, atMs });
            else {
              const settle = random();
              const settledAtMs = settle < 0.1 ? Number.POSITIVE_INFINITY : settle < 0.13 ? atMs - 1 : atMs + int(6);
              writes.push(w(runId, atMs, scored, settledAtMs));
            }
          }
        }
        const batch = history(writes, reads, resets, random() < 0.05);
        const before = whole;
        whole = join(whole, batch);
        const next = mergeSurfaceStats(stats, batchSurface(batch));
        if (next.recompute) {
          outcomes.recomputed++;
          stats = epochSurfaceStats(whole);
          continue;
        }
        outcomes[next.epochStartMs === (stats?.epochStartMs ?? null) ? "fast" : "opened"]++;
        const context = JSON.stringify({ before, batch });
        // The merged stats are those of the whole history's latest epoch.
        expect(next, context).toEqual(epochSurfaceStats(whole));
        stats = next;
        // Runs of the epoch are linked by the stats; every other run keeps the links it had
        const start = next.epochStartMs ?? Number.NEGATIVE_INFINITY;
        const epoch = history(
          whole.writes.filter((x) => x.atMs > start),
          whole.reads.filter((x) => x.atMs > start),
          [],
        );
        const inEpoch = new Set(surfaceRunSpans(epoch).map((s) => s.runId));
        // (A surface made public passes public state through every link it had: the store flips them, passPublicState.)
        const expected = new Map(
          [...sweepLinks(before)]
            .filter(([runId]) => !inEpoch.has(runId))
            .map(([runId, inherited]) => [runId, whole.public && inherited === "internal" ? "public" : inherited]),
        );
        for (const span of surfaceRunSpans(epoch)) {
          const inherited = linkWithoutResets(next, span);
          if (inherited !== null) expected.set(span.runId, inherited);
        }
        expect(sweepLinks(whole), context).toEqual(expected);
        // The epoch's linked runs are one group of their own.
        const groups = surfaceLinkGroups(whole).map((g) => g.members.map((m) => m.runId));
        expect(groups.filter((g) => g.some((id) => inEpoch.has(id))).length, context).toBeLessThanOrEqual(1);
        expect(
          groups.filter((g) => g.some((id) => inEpoch.has(id)) && g.some((id) => !inEpoch.has(id))),
          context,
        ).toEqual([]);
      }
    }
    // Each way is taken often enough to be tested.
    expect(outcomes.fast).toBeGreaterThan(300);
    expect(outcomes.opened).toBeGreaterThan(100);
    expect(outcomes.recomputed).toBeGreaterThan(300);
  });
});
