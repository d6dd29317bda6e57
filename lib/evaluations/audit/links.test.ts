import { describe, expect, it } from "vitest";
import { seededRandom } from "../../testing/seeded-random";
import type { InheritedState } from "../vocabulary";
import type { RunRecord } from "../run-record-schema";
import { INHERITED_RANK, mostPublicInheritedSql } from "../../replay/rules/inherited-state";
import {
  addToSurfaceStats,
  linkWithoutResets,
  surfaceLinkGroups,
  surfaceRunSpans,
  type SurfaceHistory,
  type SurfaceStats,
} from "../separation";
import {
  batchLinks,
  batchRunAudit,
  batchSurfaces,
  linkCandidateRuns,
  linkGroupNames,
  linkGroupsOfRows,
  linkGrowth,
  mergeSurfaceStats,
  newlyLinkableRange,
  separationPaths,
  storedRunLink,
  surfaceLinkRows,
  surfacesMadePublic,
  type LinkableRange,
  type LinkRow,
} from "./links";

const S = "db:orders/1";
const at = (ms: number) => new Date(Date.UTC(2026, 11, 1) + ms).toISOString();
// Run 1 writes S at 1 s and is scored at 5 s; run 2 reads S at 21 s and is scored at 25 s; a reset of S at 20 s between them.
const chain = (reset: NonNullable<RunRecord["resets"]>[number] | null): { id: string; run: RunRecord }[] => [
  {
    id: "1",
    run: {
      externalId: "r1",
      taskId: "t",
      startedAt: at(0),
      scoredAt: at(5_000),
      endpointLabel: "success",
      touches: [{ surface: S, op: "write", at: at(1_000) }],
    },
  },
  {
    id: "2",
    run: {
      externalId: "r2",
      taskId: "t",
      startedAt: at(20_000),
      scoredAt: at(25_000),
      endpointLabel: "success",
      touches: [{ surface: S, op: "read", at: at(21_000) }],
      ...(reset ? { resets: [reset] } : {}),
    },
  },
];
/** The batch as the fast path sees it: which way S goes, and the links the stats give on the fast surfaces. */
const fastPath = (runs: { id: string; run: RunRecord }[]) => {
  const batch = batchSurfaces(runs);
  const merged = new Map([...batch].map(([surface, b]) => [surface, mergeSurfaceStats(undefined, b)]));
  const paths = separationPaths([...batch.keys()], merged);
  return { paths, links: batchLinks(paths.fast, merged, batch, []).links.map((l) => `${l.runId}:${l.inherited}`) };
};
const history = (verified: boolean): SurfaceHistory => ({
  surface: S,
  public: false,
  writes: [{ runId: "1", atMs: 1_000, settledAtMs: 1_000, runScoredAtMs: 5_000 }],
  reads: [{ runId: "2", atMs: 21_000 }],
  resets: [{ atMs: 20_000, verified }],
});

describe("a batch's resets", () => {
  it("an unverified reset breaks nothing: the surface stays with its stats, which link the reader to the writer", () => {
    expect(fastPath(chain({ surface: S, at: at(20_000), verified: false }))).toEqual({
      paths: { fast: [S], slow: [] },
      links: ["1:none", "2:internal"],
    });
    expect(fastPath(chain(null))).toEqual({ paths: { fast: [S], slow: [] }, links: ["1:none", "2:internal"] });
    expect(surfaceLinkGroups(history(false)).map((g) => g.members.map((m) => m.runId))).toEqual([["1", "2"]]);
  });

  it("a verified reset sends the surface to the recompute from its history, where it breaks the link", () => {
    expect(fastPath(chain({ surface: S, at: at(20_000), verified: true }))).toEqual({ paths: { fast: [], slow: [S] }, links: [] });
    expect(surfaceLinkGroups(history(true))).toEqual([]);
  });

  it("a verified reset whose canary survived breaks nothing: the surface stays with its stats", () => {
    const canary = { surface: S, planted: "token", found: true, evidence: "found after the reset" };
    expect(fastPath(chain({ surface: S, at: at(20_000), verified: true, canary }))).toEqual({
      paths: { fast: [S], slow: [] },
      links: ["1:none", "2:internal"],
    });
    expect(fastPath(chain({ surface: S, at: at(20_000), verified: true, canary: { ...canary, found: false } })).paths).toEqual({
      fast: [],
      slow: [S],
    });
  });
});

const stats = (over: Partial<SurfaceStats> = {}): SurfaceStats => ({
  firstWrite: { atMs: 100, runId: "5" },
  secondWriteMs: 300,
  lastRead: { atMs: 500, runId: "7" },
  secondReadMs: 400,
  public: false,
  epochStartMs: null,
  horizonMs: null,
  recompute: false,
  ...over,
});

describe("the stored runs new stats may newly link", () => {
  it("lie after the new earliest write up to the old one, and from the old latest read to before the new one, with the runs the old stats named", () => {
    const after = stats({
      firstWrite: { atMs: 50, runId: "20" },
      secondWriteMs: 100,
      lastRead: { atMs: 900, runId: "21" },
      secondReadMs: 500,
    });
    expect(newlyLinkableRange(S, stats(), after)).toEqual({
      surface: S,
      epochStartMs: null,
      readLoMs: 50,
      readHiMs: 100,
      writeLoMs: 500,
      writeHiMs: 900,
      explicit: ["5", "7"],
    });
    // Neither end moved: only the runs the old stats named.
    expect(newlyLinkableRange(S, stats(), stats())).toEqual({
      surface: S,
      epochStartMs: null,
      readLoMs: null,
      readHiMs: null,
      writeLoMs: null,
      writeHiMs: null,
      explicit: ["5", "7"],
    });
    // No write before: every read after the new one; no read before: every write before the new read.
    const first = newlyLinkableRange(S, stats({ firstWrite: null, secondWriteMs: null, lastRead: null, secondReadMs: null }), after);
    expect(first).toEqual({ surface: S, epochStartMs: null, readLoMs: 50, readHiMs: null, writeLoMs: null, writeHiMs: 900, explicit: [] });
    // A surface new to the evaluation has no stored run, and nor has a new epoch.
    expect(newlyLinkableRange(S, undefined, after)).toBeNull();
    expect(newlyLinkableRange(S, stats(), { ...after, epochStartMs: 40 })).toBeNull();
  });

  it("are the runs that read, or were scored after writing, in (readLo, readHi], or wrote in [writeLo, writeHi)", () => {
    const range: LinkableRange = {
      surface: S,
      epochStartMs: null,
      readLoMs: 50,
      readHiMs: 100,
      writeLoMs: 500,
      writeHiMs: 900,
      explicit: ["5"],
    };
    const h: SurfaceHistory = {
      surface: S,
      public: false,
      reads: [
        { runId: "a", atMs: 50 },
        { runId: "b", atMs: 100 },
        { runId: "c", atMs: 101 },
      ],
      writes: [
        { runId: "d", atMs: 500, settledAtMs: 500, runScoredAtMs: 2_000 },
        { runId: "e", atMs: 900, settledAtMs: 900, runScoredAtMs: 2_000 },
        { runId: "f", atMs: 10, settledAtMs: 10, runScoredAtMs: 60 },
        { runId: "g", atMs: 10, settledAtMs: 10, runScoredAtMs: null },
      ],
      resets: [],
    };
    expect([...linkCandidateRuns(range, h)].sort()).toEqual(["5", "b", "d", "f"]);
    // Open-ended: every read after readLo (e's scoring at 2 s too), every write before writeHi.
    expect([...linkCandidateRuns({ ...range, readHiMs: null, writeLoMs: null }, h)].sort()).toEqual(["5", "b", "c", "d", "e", "f", "g"]);
    expect([...linkCandidateRuns({ ...range, readLoMs: null, writeHiMs: null }, h)]).toEqual(["5"]);
    // A write at or before the epoch's start is ended: f and g wrote at 10.
    expect([...linkCandidateRuns({ ...range, epochStartMs: 10, readLoMs: null, writeLoMs: null }, h)].sort()).toEqual(["5", "d"]);
  });

  it("include every stored run the new stats link anew or pass more, on random histories cut into a stored part and a batch", () => {
    const random = seededRandom(11);
    const int = (n: number) => Math.floor(random() * n);
    for (let trial = 0; trial < 500; trial++) {
      const runs = 2 + int(8);
      const scored = Array.from({ length: runs }, () => int(12));
      const full: SurfaceHistory = {
        surface: S,
        public: false,
        writes: Array.from({ length: int(6) }, () => int(runs)).map((r) => ({
          runId: String(r + 1),
          atMs: int(12),
          settledAtMs: 0,
          runScoredAtMs: scored[r]!,
        })),
        reads: Array.from({ length: int(6) }, () => ({ runId: String(1 + int(runs)), atMs: int(12) })),
        resets: [],
      };
      const inBatch = (runId: string) => Number(runId) % 2 === trial % 2;
      const part = (batch: boolean): SurfaceHistory => ({
        ...full,
        writes: full.writes.filter((w) => inBatch(w.runId) === batch),
        reads: full.reads.filter((r) => inBatch(r.runId) === batch),
      });
      const flags = { public: false };
      const storedSpans = surfaceRunSpans(part(false));
      const before = { ...addToSurfaceStats(null, storedSpans, flags), epochStartMs: null, horizonMs: null, recompute: false };
      const after = { ...before, ...addToSurfaceStats(before, surfaceRunSpans(part(true)), flags) };
      const candidates = linkCandidateRuns(newlyLinkableRange(S, before, after)!, part(false));
      // Linked anew, or receiving more than before (a writer that now also read another's write: none to internal).
      const rank = (state: InheritedState | null) => (state === null ? -1 : INHERITED_RANK[state]);
      const newlyLinked = storedSpans
        .filter((span) => rank(linkWithoutResets(after, span)) > rank(linkWithoutResets(before, span)))
        .map((s) => s.runId);
      expect(
        newlyLinked.filter((runId) => !candidates.has(runId)),
        JSON.stringify(full),
      ).toEqual([]);
    }
  });
});

describe("the links a batch adds", () => {
  it("link the batch's runs by the stats, and a stored run only when it is newly linked or receives more public state", () => {
    const merged = new Map([[S, stats({ firstWrite: { atMs: 50, runId: "20" }, secondWriteMs: 100, public: true })]]);
    const batch = new Map([
      [
        S,
        {
          spans: [{ runId: "20", firstWriteMs: 50, lastReadMs: null }],
          public: true,
          breakingResets: null,
          firstEventMs: 50,
          horizonMs: 50,
          predated: false,
        },
      ],
    ]);
    const stored = (runId: string, inherited: "none" | "internal" | "public" | null, lastReadMs = 80) => ({
      surface: S,
      runId,
      firstWriteMs: null,
      lastReadMs,
      unit: `u${runId}`,
      inherited,
    });
    const { links, unitsOn } = batchLinks([S], merged, batch, [
      stored("31", null),
      stored("32", "internal"),
      stored("33", "public"),
      stored("34", null, 40),
    ]);
    expect(links).toEqual([
      { surface: S, runId: "20", inherited: "none" },
      { surface: S, runId: "31", inherited: "public" },
      { surface: S, runId: "32", inherited: "public" },
    ]);
    expect(unitsOn).toEqual(new Map([[S, new Set(["20", "u31", "u32"])]]));
    expect(storedRunLink(stats({ firstWrite: { atMs: 50, runId: "20" } }), stored("35", "internal"))).toBeNull();
  });

  it("keep a surface's stored group name; a new group is named by its smallest run, as a number", () => {
    const links = [
      { surface: "s1", runId: "3", inherited: "internal" as const },
      { surface: "s2", runId: "10", inherited: "none" as const },
      { surface: "s2", runId: "9", inherited: "internal" as const },
    ];
    expect(linkGroupNames([{ surface: "s1", linkGroup: "10" }], links)).toEqual(
      new Map([
        ["s1", "10"],
        ["s2", "9"],
      ]),
    );
  });

  it("write each batch run with its merged unit and the most public state any of its links passes", () => {
    const links = [
      { surface: "s1", runId: "9", inherited: "internal" as const },
      { surface: "s2", runId: "9", inherited: "public" as const },
      { surface: "s3", runId: "9", inherited: "none" as const },
      { surface: "s1", runId: "4", inherited: "public" as const },
    ];
    const units = new Map([
      ["9", { unit: "4" }],
      ["4", { unit: "4" }],
    ]);
    expect(batchRunAudit(links, new Set(["9"]), units)).toEqual(new Map([["9", { unit: "4", inherited: "public" }]]));
  });

  it("find the stored surfaces the batch made public", () => {
    const before = new Map([
      ["a", stats()],
      ["b", stats({ public: true })],
      ["c", stats()],
    ]);
    const after = new Map([
      ["a", stats({ public: true })],
      ["b", stats({ public: true })],
      ["c", stats()],
      ["d", stats({ public: true })],
    ]);
    expect(surfacesMadePublic(["a", "b", "c", "d"], before, after)).toEqual(["a"]);
  });
});

describe("link rows", () => {
  it("name each group by its first run, and read back as the same groups", () => {
    const groups = [
      {
        surface: "s",
        members: [
          { runId: "2", inherited: "none" as const },
          { runId: "5", inherited: "internal" as const },
        ],
      },
      {
        surface: "t",
        members: [
          { runId: "5", inherited: "none" as const },
          { runId: "8", inherited: "public" as const },
        ],
      },
    ];
    const rows = surfaceLinkRows(groups);
    expect(rows.map((r) => `${r.surface}/${r.link_group}:${r.run_id}:${r.inherited}`)).toEqual([
      "s/2:2:none",
      "s/2:5:internal",
      "t/5:5:none",
      "t/5:8:public",
    ]);
    expect(linkGroupsOfRows(rows)).toEqual(groups);
  });

  it("take the most public inherited state in SQL by separation.ts's rank", () => {
    expect(mostPublicInheritedSql("inherited")).toBe(
      "CASE max(CASE inherited WHEN 'public' THEN 2 WHEN 'internal' THEN 1 ELSE 0 END) WHEN 2 THEN 'public' WHEN 1 THEN 'internal' ELSE 'none' END",
    );
  });
});

describe("links that only grew", () => {
  const rows = (...specs: string[]): LinkRow[] =>
    specs.map((spec) => {
      const [surface, group, run, inherited] = spec.split(/[/:]/) as [string, string, string, InheritedState];
      return { surface, link_group: group, run_id: run, inherited };
    });
  const stored = rows("s/2:2:none", "s/2:5:internal", "s/7:7:none", "s/7:9:internal", "t/3:3:none", "t/3:4:public");

  it("answer the rows to write and, per changed group, the runs whose units it joins", () => {
    // Run 11 reads s after 5 and 9 wrote it: groups 2 and 7 merge under 2; t is as it was.
    const growth = linkGrowth(
      stored,
      rows("s/2:2:none", "s/2:5:internal", "s/2:7:none", "s/2:9:internal", "s/2:11:internal", "t/3:3:none", "t/3:4:public"),
    );
    expect(growth!.changed.map((r) => `${r.surface}/${r.link_group}:${r.run_id}:${r.inherited}`)).toEqual([
      "s/2:7:none",
      "s/2:9:internal",
      "s/2:11:internal",
    ]);
    expect(growth!.joins).toEqual([["s", ["2", "7", "9", "11"]]]);
  });

  it("answer a state passed more publicly as a change, and nothing when nothing changed", () => {
    expect(linkGrowth(stored, rows("s/2:2:none", "s/2:5:public", "s/7:7:none", "s/7:9:internal", "t/3:3:none", "t/3:4:public"))).toEqual({
      changed: rows("s/2:5:public"),
      joins: [["s", ["2", "5"]]],
    });
    expect(linkGrowth(stored, stored)).toEqual({ changed: [], joins: [] });
  });

  it("refuse a lost link, a state passed less publicly, and a group that split", () => {
    expect(linkGrowth(stored, rows("s/2:2:none", "s/2:5:internal", "t/3:3:none", "t/3:4:public"))).toBeNull();
    expect(linkGrowth(stored, rows("s/2:2:none", "s/2:5:none", "s/7:7:none", "s/7:9:internal", "t/3:3:none", "t/3:4:public"))).toBeNull();
    // Group 2 of s split: 2 stays with 7's group, 5 is in a group of its own with 8.
    expect(
      linkGrowth(
        stored,
        rows("s/2:2:none", "s/2:7:none", "s/2:9:internal", "s/5:5:internal", "s/5:8:internal", "t/3:3:none", "t/3:4:public"),
      ),
    ).toBeNull();
  });
});
