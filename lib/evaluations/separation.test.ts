import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/seeded-random";
import {
  addToSurfaceStats,
  analysisUnits,
  effectSettledAtMs,
  linkWithoutResets,
  resetBreaksRoutes,
  surfaceLinkGroups,
  surfaceRunSpans,
  type SurfaceHistory,
} from "./separation";

// Three runs of one task on one surface, times in ms: run 1 [0, 5], run 2 [10, 15], run 3 [20, 25].
// Run 1 writes at 1; run 2 reads at 11 and writes at 12; run 3 reads at 21.
const write = (runId: string, atMs: number, runScoredAtMs: number, settledAtMs = atMs) => ({ runId, atMs, settledAtMs, runScoredAtMs });
const chain = (over: Partial<SurfaceHistory> = {}): SurfaceHistory => ({
  surface: "service:banking.balance",
  public: false,
  writes: [write("1", 1, 5), write("2", 12, 15)],
  reads: [
    { runId: "2", atMs: 11 },
    { runId: "3", atMs: 21 },
  ],
  resets: [],
  ...over,
});
const members = (history: SurfaceHistory) => surfaceLinkGroups(history).map((g) => g.members.map((m) => `${m.runId}:${m.inherited}`));

describe("separation on one surface", () => {
  it("connects a chain of three runs through one surface", () => {
    expect(members(chain())).toEqual([["1:none", "2:internal", "3:internal"]]);
  });

  it("a verified reset after the writes settled breaks the chain; an unverified one does not", () => {
    expect(members(chain({ resets: [{ atMs: 20, verified: true }] }))).toEqual([["1:none", "2:internal"]]);
    expect(members(chain({ resets: [{ atMs: 20, verified: false }] }))).toEqual([["1:none", "2:internal", "3:internal"]]);
    // between run 1 and run 2: run 2 is separate from run 1, run 3 still reads run 2's write
    expect(members(chain({ resets: [{ atMs: 10, verified: true }] }))).toEqual([["2:none", "3:internal"]]);
  });

  it("a verified reset whose canary survived breaks nothing: the chain it would break stays connected", () => {
    expect(members(chain({ resets: [{ atMs: 20, verified: true, canarySurvived: false }] }))).toEqual([["1:none", "2:internal"]]);
    expect(members(chain({ resets: [{ atMs: 20, verified: true, canarySurvived: true }] }))).toEqual([
      ["1:none", "2:internal", "3:internal"],
    ]);
    expect(members(chain({ resets: [{ atMs: 10, verified: true, canarySurvived: true }] }))).toEqual([
      ["1:none", "2:internal", "3:internal"],
    ]);
    expect([
      resetBreaksRoutes({ verified: true }),
      resetBreaksRoutes({ verified: true, canarySurvived: true }),
      resetBreaksRoutes({ verified: false, canarySurvived: false }),
    ]).toEqual([true, false, false]);
  });

  it("a verified reset does not break a route from a write still open, nor one that settles after it", () => {
    expect(members(chain({ writes: [write("1", 1, 5, Number.POSITIVE_INFINITY)], resets: [{ atMs: 20, verified: true }] }))).toEqual([
      ["1:none", "2:internal", "3:internal"],
    ]);
    expect(
      members(chain({ writes: [write("1", 1, 5, 30)], reads: [{ runId: "3", atMs: 21 }], resets: [{ atMs: 20, verified: true }] })),
    ).toEqual([["1:none", "3:internal"]]);
  });

  it("connects two writers when either is scored after the other's write, unless a verified reset came between", () => {
    expect(members({ surface: "repo:main", public: false, writes: [write("1", 1, 5), write("2", 12, 15)], reads: [], resets: [] })).toEqual(
      [["1:none", "2:internal"]],
    );
    expect(members({ surface: "repo:main", public: false, writes: [write("1", 1, 5), write("2", 2, 3)], reads: [], resets: [] })).toEqual([
      ["1:internal", "2:internal"],
    ]);
    expect(members({ surface: "repo:main", public: false, writes: [write("1", 6, 8), write("2", 2, 3)], reads: [], resets: [] })).toEqual([
      ["1:internal", "2:none"],
    ]);
    expect(
      members({
        surface: "repo:main",
        public: false,
        writes: [write("1", 6, 8), write("2", 2, 3)],
        reads: [],
        resets: [{ atMs: 4, verified: true }],
      }),
    ).toEqual([]);
  });

  it("a read before the write, or of the run's own write, connects nothing; a public surface passes public state", () => {
    expect(
      members({
        surface: "s",
        public: false,
        writes: [write("2", 12, 15)],
        reads: [
          { runId: "1", atMs: 1 },
          { runId: "2", atMs: 13 },
          { runId: "3", atMs: 12 },
        ],
        resets: [],
      }),
    ).toEqual([]);
    expect(members(chain({ public: true }))).toEqual([["1:none", "2:public", "3:public"]]);
  });

  it("settles an effect's write at its terminal evidence, its return when terminal at scoring, else never", () => {
    expect(
      effectSettledAtMs({
        requestedAtMs: 1,
        acknowledgedAtMs: 2,
        statusAtScoring: "pending",
        latestResolution: { status: "completed", atMs: 9 },
      }),
    ).toBe(9);
    expect(effectSettledAtMs({ requestedAtMs: 1, acknowledgedAtMs: 2, statusAtScoring: "completed", latestResolution: null })).toBe(2);
    expect(
      effectSettledAtMs({
        requestedAtMs: 1,
        acknowledgedAtMs: null,
        statusAtScoring: "pending",
        latestResolution: { status: "unknown", atMs: 9 },
      }),
    ).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("analysis units", () => {
  it("are the connected components over every surface, named by their smallest run id, with the most public inheritance", () => {
    const units = analysisUnits(
      ["9", "10", "11", "12"],
      [
        {
          surface: "s",
          members: [
            { runId: "9", inherited: "none" },
            { runId: "10", inherited: "internal" },
          ],
        },
        {
          surface: "t",
          members: [
            { runId: "10", inherited: "public" },
            { runId: "11", inherited: "internal" },
          ],
        },
      ],
    );
    expect(Object.fromEntries(units)).toEqual({
      "9": { unit: "9", inherited: "none" },
      "10": { unit: "9", inherited: "public" },
      "11": { unit: "9", inherited: "internal" },
      "12": { unit: "12", inherited: "none" },
    });
  });
});

describe("the fast path on a surface with no verified reset", () => {
  const linked = (history: SurfaceHistory, batches: number) => {
    const spans = surfaceRunSpans(history);
    // The runs added in `batches` steps, as ingestion adds them; the stats never see a run twice.
    let stats = null as ReturnType<typeof addToSurfaceStats> | null;
    for (let b = 0; b < batches; b++)
      stats = addToSurfaceStats(
        stats,
        spans.filter((_, i) => i % batches === b),
        { public: history.public },
      );
    return spans.flatMap((span) => {
      const inherited = linkWithoutResets(stats!, span);
      return inherited === null ? [] : [`${span.runId}:${inherited}`];
    });
  };

  it("links the chain of three runs as the sweep does", () => {
    expect(linked(chain(), 1)).toEqual(["1:none", "2:internal", "3:internal"]);
    expect(linked(chain({ public: true, resets: [{ atMs: 20, verified: false }] }), 3)).toEqual(["1:none", "2:public", "3:public"]);
  });

  it("agrees with the sweep on random histories without a verified reset, whatever the batches: one group at most", () => {
    const random = seededRandom(7);
    const int = (n: number) => Math.floor(random() * n);
    for (let trial = 0; trial < 500; trial++) {
      const runs = 1 + int(8);
      const history: SurfaceHistory = {
        surface: "s",
        public: random() < 0.3,
        // Times from a small range, so that ties (a read at a write's instant) are common.
        writes: Array.from({ length: int(6) }, () => ({
          runId: String(1 + int(runs)),
          atMs: int(12),
          settledAtMs: int(12),
          runScoredAtMs: int(12),
        })),
        reads: Array.from({ length: int(6) }, () => ({ runId: String(1 + int(runs)), atMs: int(12) })),
        resets: random() < 0.3 ? [{ atMs: int(12), verified: false }] : [],
      };
      // A run's scoring is one time: writes of one run share it.
      const scored = new Map<string, number | null>();
      history.writes = history.writes.map((w) => ({
        ...w,
        runScoredAtMs: scored.has(w.runId) ? scored.get(w.runId)! : scored.set(w.runId, w.runScoredAtMs).get(w.runId)!,
      }));
      const groups = surfaceLinkGroups(history);
      expect(groups.length).toBeLessThanOrEqual(1);
      const sweep = (groups[0]?.members ?? []).map((m) => `${m.runId}:${m.inherited}`).sort();
      expect(linked(history, 1 + (trial % 3)).sort(), JSON.stringify(history)).toEqual(sweep);
    }
  });
});
