// Cross-unit separation for ingested runs (the paper, §3; docs/evaluations.md, Rule 2). Two runs are connected through a
// surface when one writes it and the other reads it, or is scored on it, later, with no verified
// reset of it in between; a run is scored on the surfaces it wrote (so two writers are connected
// when either is scored after the other's write) and on those its scorer read (`scoredOn`). A
// verified reset breaks a route only once the write it follows has settled (the paper's verified
// reset waits until the operation is terminal); an unverified one, or one whose canary survived, breaks nothing. Connected
// components are the analysis units. Pure: times are epoch milliseconds; run ids are opaque strings.
import { INHERITED_RANK, type InheritedState } from "../replay/rules/inherited-state";
import type { ResolutionStatus, StatusAtScoring } from "./vocabulary";
import { isTerminalStatus } from "./finality";

export interface SurfaceWrite {
  runId: string;
  atMs: number;
  /** When the write can no longer change: Infinity while it may still land. */
  settledAtMs: number;
  /** When the writing run was scored: it is scored on the surfaces it wrote. null: it was never scored (unscored). */
  runScoredAtMs: number | null;
}

/** Everything that happened on one surface, from every run of the evaluation. */
export interface SurfaceHistory {
  surface: string;
  /** A touch or effect marked the surface public (docs/evaluations.md, Rule 2). */
  public: boolean;
  writes: readonly SurfaceWrite[];
  /** Reads, and the scoring of runs whose scorer read it (`scoredOn`). */
  reads: readonly { runId: string; atMs: number }[];
  resets: readonly ResetFacts[];
}

/** A reset as recorded: whether it was verified, and whether a canary planted before it was found after it. */
export interface ResetFacts {
  atMs: number;
  verified: boolean;
  /** A canary check of this reset found its canary (docs/evaluations.md, Rule 2). */
  canarySurvived?: boolean;
}

/** A reset breaks routes only when verified and no canary survived it: a surviving canary shows the surface kept state. */
export function resetBreaksRoutes(reset: Pick<ResetFacts, "verified" | "canarySurvived">): boolean {
  return reset.verified && !reset.canarySurvived;
}

/** The runs connected through one surface, and what each received through it. */
export interface SurfaceLinkGroup {
  surface: string;
  members: { runId: string; inherited: InheritedState }[];
}

/** When an effect's write settles: at its terminal evidence, at its return when that was terminal, else never (Infinity). */
export function effectSettledAtMs(effect: {
  requestedAtMs: number;
  acknowledgedAtMs: number | null;
  statusAtScoring: StatusAtScoring;
  latestResolution: { status: ResolutionStatus; atMs: number } | null;
}): number {
  if (effect.latestResolution && isTerminalStatus(effect.latestResolution.status)) return effect.latestResolution.atMs;
  if (isTerminalStatus(effect.statusAtScoring)) return effect.acknowledgedAtMs ?? effect.requestedAtMs;
  return Number.POSITIVE_INFINITY;
}

class UnionFind {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    if (!this.parent.has(root)) this.parent.set(root, root);
    for (let node = x; node !== root;) {
      const next = this.parent.get(node)!;
      this.parent.set(node, root);
      node = next;
    }
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
  nodes(): string[] {
    return [...this.parent.keys()];
  }
}

/** The first verified reset at or after `fromMs`, or Infinity. `resets` sorted ascending. */
function firstAtOrAfter(resets: readonly number[], fromMs: number): number {
  let lo = 0;
  let hi = resets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (resets[mid]! < fromMs) lo = mid + 1;
    else hi = mid;
  }
  return lo < resets.length ? resets[lo]! : Number.POSITIVE_INFINITY;
}

/**
 * The link groups of one surface, in time order with one sweep: a write is live from its time
 * until the first verified reset at or after it settled; a read (or scoring) joins its run to every
 * live write of another run. Each write joins a group at most once, so the sweep is linear after sorting.
 */
export function surfaceLinkGroups(history: SurfaceHistory): SurfaceLinkGroup[] {
  const verified = history.resets
    .filter(resetBreaksRoutes)
    .map((r) => r.atMs)
    .sort((a, b) => a - b);
  // At one instant: reads first (a write at the read's own time does not reach it), then the resets that end writes, then new writes.
  type Event = { atMs: number; order: 0 | 1 | 2; runId: string; key: number };
  const events: Event[] = [];
  history.reads.forEach((read) => events.push({ atMs: read.atMs, order: 0, runId: read.runId, key: -1 }));
  history.writes.forEach((write, key) => {
    if (write.runScoredAtMs !== null) events.push({ atMs: write.runScoredAtMs, order: 0, runId: write.runId, key: -1 });
    const endMs = firstAtOrAfter(verified, write.settledAtMs);
    if (endMs <= write.atMs) return; // reset at the instant it was written: it reaches no later read
    events.push({ atMs: write.atMs, order: 2, runId: write.runId, key });
    if (endMs !== Number.POSITIVE_INFINITY) events.push({ atMs: endMs, order: 1, runId: write.runId, key });
  });
  events.sort((a, b) => a.atMs - b.atMs || a.order - b.order);

  const groups = new UnionFind();
  const inherited = new Map<string, InheritedState>();
  /** Live writes by key, with their run; `joined` are those already in one group together, `unjoined` those not yet. */
  const live = new Map<number, string>();
  const liveRuns = new Map<string, number>();
  const joined = new Set<number>();
  let unjoined: number[] = [];
  for (const event of events) {
    if (event.order === 2) {
      live.set(event.key, event.runId);
      liveRuns.set(event.runId, (liveRuns.get(event.runId) ?? 0) + 1);
      unjoined.push(event.key);
    } else if (event.order === 1) {
      live.delete(event.key);
      joined.delete(event.key);
      const left = liveRuns.get(event.runId)! - 1;
      if (left === 0) liveRuns.delete(event.runId);
      else liveRuns.set(event.runId, left);
    } else {
      const others = liveRuns.size - (liveRuns.has(event.runId) ? 1 : 0);
      if (others === 0) continue;
      inherited.set(event.runId, history.public ? "public" : "internal");
      const fresh = unjoined.filter((key) => live.has(key));
      unjoined = [];
      const anchor = live.get(joined.size > 0 ? joined.values().next().value! : fresh[0]!)!;
      for (const key of fresh) {
        groups.union(live.get(key)!, anchor);
        joined.add(key);
      }
      groups.union(event.runId, anchor);
    }
  }

  const byRoot = new Map<string, SurfaceLinkGroup["members"]>();
  for (const runId of groups.nodes()) {
    const root = groups.find(runId);
    let members = byRoot.get(root);
    if (!members) byRoot.set(root, (members = []));
    members.push({ runId, inherited: inherited.get(runId) ?? "none" });
  }
  return [...byRoot.values()]
    .filter((members) => members.length > 1)
    .map((members) => ({ surface: history.surface, members: members.sort((a, b) => compareRunIds(a.runId, b.runId)) }));
}

/** Run ids are decimal bigint strings: compared as numbers, the smallest names its unit. */
export function compareRunIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The analysis units: connected components over every surface's link groups. Each run's unit is the
 * smallest run id of its component (a run in no group is its own unit), and its inherited state the
 * most public one it received through any surface.
 */
export function analysisUnits(
  runIds: readonly string[],
  groups: readonly SurfaceLinkGroup[],
): Map<string, { unit: string; inherited: InheritedState }> {
  const components = new UnionFind();
  const inherited = new Map<string, InheritedState>();
  for (const runId of runIds) components.find(runId);
  for (const group of groups) {
    const first = group.members[0]!.runId;
    for (const member of group.members) {
      components.union(member.runId, first);
      const before = inherited.get(member.runId) ?? "none";
      if (INHERITED_RANK[member.inherited] > INHERITED_RANK[before]) inherited.set(member.runId, member.inherited);
    }
  }
  const smallest = new Map<string, string>();
  for (const runId of components.nodes()) {
    const root = components.find(runId);
    const current = smallest.get(root);
    if (current === undefined || compareRunIds(runId, current) < 0) smallest.set(root, runId);
  }
  const result = new Map<string, { unit: string; inherited: InheritedState }>();
  for (const runId of components.nodes())
    result.set(runId, { unit: smallest.get(components.find(runId))!, inherited: inherited.get(runId) ?? "none" });
  return result;
}

// The fast path for a surface with no verified reset: every write stays live, so run X received
// another run's write exactly when some other run's earliest write on it precedes X's latest read
// (a writer's scoring is a read), and all such runs form one link group (the run with the earliest
// write is connected to every later reader). A few numbers per surface then decide any run's link
// without its history; adding runs only lowers the earliest write and raises the latest read, so
// links are only ever added. The same holds in a surface's latest epoch, after its latest reset that
// breaks routes, where no write ends (SurfaceStats); elsewhere the sweep above applies.

/** One run on one surface: its earliest write and its latest read (its scoring, when it wrote), or null. */
export interface SurfaceRunSpan {
  runId: string;
  firstWriteMs: number | null;
  lastReadMs: number | null;
}

/** What the fast path keeps per surface: the earliest write and latest read with their runs, and those of any other run. */
export interface LinkStats {
  firstWrite: { atMs: number; runId: string } | null;
  /** The earliest write of a run other than firstWrite's. */
  secondWriteMs: number | null;
  lastRead: { atMs: number; runId: string } | null;
  /** The latest read of a run other than lastRead's. */
  secondReadMs: number | null;
  public: boolean;
}

/**
 * A surface's LinkStats over its latest epoch: what happened after its latest reset that breaks routes
 * (all of its history when there is none). The fast path links by them alone when every write at or
 * before that reset had settled by it and no run has events on both sides of it: then no write of an
 * earlier epoch is live in this one, every write in this one stays live (no reset follows it), and the
 * earlier epochs' links are stored and closed. `recompute` says that does not hold (or is not known):
 * the surface is recomputed from its history.
 */
export interface SurfaceStats extends LinkStats {
  epochStartMs: number | null;
  /**
   * The latest instant at which one of the epoch's events happened or one of its writes settled: a
   * reset after it opens a new epoch without cutting a link. Infinity: a write may still land; -Infinity:
   * the epoch holds no event; null: not known.
   */
  horizonMs: number | null;
  recompute: boolean;
}

/** The latest epoch's stats from a surface's whole history (a recompute stores them). */
export function epochSurfaceStats(history: SurfaceHistory): SurfaceStats {
  const breaking = history.resets.filter(resetBreaksRoutes).map((r) => r.atMs);
  const epochStartMs = breaking.length === 0 ? null : breaking.reduce((a, b) => Math.max(a, b));
  const inEpoch = (atMs: number) => epochStartMs === null || atMs > epochStartMs;
  const runsBefore = new Set<string>();
  const runsIn = new Set<string>();
  for (const { runId, atMs } of surfaceEvents(history)) (inEpoch(atMs) ? runsIn : runsBefore).add(runId);
  // Evidence older than a write itself, a write of an earlier epoch still live in this one, or a run on both sides of its start: the sweep decides.
  const recompute =
    history.writes.some((w) => w.settledAtMs < w.atMs || (!inEpoch(w.atMs) && inEpoch(w.settledAtMs))) ||
    [...runsIn].some((runId) => runsBefore.has(runId));
  const epoch = { ...history, writes: history.writes.filter((w) => inEpoch(w.atMs)), reads: history.reads.filter((r) => inEpoch(r.atMs)) };
  return {
    ...addToSurfaceStats(null, surfaceRunSpans(epoch), { public: history.public }),
    epochStartMs,
    horizonMs: historyHorizonMs(history, inEpoch),
    recompute,
  };
}

/** Every event of a surface's history, by its run: each read, each write, and the scoring of each run that wrote there (a read). */
export function surfaceEvents(history: Pick<SurfaceHistory, "writes" | "reads">): readonly { runId: string; atMs: number }[] {
  return [
    ...history.reads,
    ...history.writes.flatMap((w) => (w.runScoredAtMs === null ? [w] : [w, { runId: w.runId, atMs: w.runScoredAtMs }])),
  ];
}

/**
 * SurfaceStats.horizonMs over a history, or over the part of it in an epoch: the latest of the events
 * `inEpoch` takes and of the settlements of the writes it takes (-Infinity: none).
 */
export function historyHorizonMs(
  history: Pick<SurfaceHistory, "writes" | "reads">,
  inEpoch: (atMs: number) => boolean = () => true,
): number {
  let horizonMs = Number.NEGATIVE_INFINITY;
  for (const { atMs } of surfaceEvents(history)) if (inEpoch(atMs)) horizonMs = Math.max(horizonMs, atMs);
  for (const write of history.writes) if (inEpoch(write.atMs)) horizonMs = Math.max(horizonMs, write.settledAtMs);
  return horizonMs;
}

/** Each run's span on one surface's history. */
export function surfaceRunSpans(history: SurfaceHistory): SurfaceRunSpan[] {
  const spans = new Map<string, SurfaceRunSpan>();
  const span = (runId: string) => spans.get(runId) ?? spans.set(runId, { runId, firstWriteMs: null, lastReadMs: null }).get(runId)!;
  const read = (runId: string, atMs: number) => {
    const s = span(runId);
    s.lastReadMs = s.lastReadMs === null ? atMs : Math.max(s.lastReadMs, atMs);
  };
  for (const write of history.writes) {
    const s = span(write.runId);
    s.firstWriteMs = s.firstWriteMs === null ? write.atMs : Math.min(s.firstWriteMs, write.atMs);
    if (write.runScoredAtMs !== null) read(write.runId, write.runScoredAtMs);
  }
  for (const r of history.reads) read(r.runId, r.atMs);
  return [...spans.values()];
}

/**
 * The stats with runs added that are new to the surface (none of them already counted). Ties keep
 * the smaller run id first; which of two tied runs is first changes no link.
 */
export function addToSurfaceStats(stats: LinkStats | null, spans: readonly SurfaceRunSpan[], flags: { public: boolean }): LinkStats {
  type Ranked = { atMs: number; runId: string | null };
  const best = (candidates: Ranked[], before: (a: Ranked, b: Ranked) => boolean) => {
    let first: Ranked | null = null;
    let second: Ranked | null = null;
    for (const c of candidates) {
      if (!first || before(c, first)) [first, second] = [c, first];
      else if (!second || before(c, second)) second = c;
    }
    return { first, second };
  };
  // An unknown run id (the stored second's) is never the first's: it sorts after a known one at the same time.
  const idBefore = (a: Ranked, b: Ranked) => a.runId !== null && (b.runId === null || compareRunIds(a.runId, b.runId) < 0);
  const writes = best(
    [
      ...(stats?.firstWrite ? [stats.firstWrite] : []),
      ...(stats?.secondWriteMs != null ? [{ atMs: stats.secondWriteMs, runId: null }] : []),
      ...spans.flatMap((s) => (s.firstWriteMs === null ? [] : [{ atMs: s.firstWriteMs, runId: s.runId }])),
    ],
    (a, b) => a.atMs < b.atMs || (a.atMs === b.atMs && idBefore(a, b)),
  );
  const reads = best(
    [
      ...(stats?.lastRead ? [stats.lastRead] : []),
      ...(stats?.secondReadMs != null ? [{ atMs: stats.secondReadMs, runId: null }] : []),
      ...spans.flatMap((s) => (s.lastReadMs === null ? [] : [{ atMs: s.lastReadMs, runId: s.runId }])),
    ],
    (a, b) => a.atMs > b.atMs || (a.atMs === b.atMs && idBefore(a, b)),
  );
  return {
    firstWrite: writes.first ? { atMs: writes.first.atMs, runId: writes.first.runId! } : null,
    secondWriteMs: writes.second?.atMs ?? null,
    lastRead: reads.first ? { atMs: reads.first.atMs, runId: reads.first.runId! } : null,
    secondReadMs: reads.second?.atMs ?? null,
    public: (stats?.public ?? false) || flags.public,
  };
}

/**
 * A run's link on a surface with no verified reset, from the surface's stats (which count it):
 * null when it is connected to no other run there; else what it inherited (none when it only wrote).
 */
export function linkWithoutResets(stats: LinkStats, span: SurfaceRunSpan): InheritedState | null {
  const otherFirstWrite = stats.firstWrite?.runId === span.runId ? stats.secondWriteMs : (stats.firstWrite?.atMs ?? null);
  const otherLastRead = stats.lastRead?.runId === span.runId ? stats.secondReadMs : (stats.lastRead?.atMs ?? null);
  if (span.lastReadMs !== null && otherFirstWrite !== null && otherFirstWrite < span.lastReadMs)
    return stats.public ? "public" : "internal";
  if (span.firstWriteMs !== null && otherLastRead !== null && span.firstWriteMs < otherLastRead) return "none";
  return null;
}
