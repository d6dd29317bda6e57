// Cross-unit separation for ingested runs (paper §3, issue 10 §3). Two runs are connected through a
// surface when one writes it and the other reads it, or is scored on it, later, with no verified
// reset of it in between; a run is scored on the surfaces it wrote (so two writers are connected
// when either is scored after the other's write) and on those its scorer read (`scoredOn`). A
// verified reset breaks a route only once the write it follows has settled (the paper's verified
// reset waits until the operation is terminal); an unverified one breaks nothing. Connected
// components are the analysis units. Pure: times are epoch milliseconds; run ids are opaque strings.
import type { InheritedState, ResolutionStatus, StatusAtScoring } from "./schemas";
import { isTerminalStatus } from "./finality";

export interface SurfaceWrite {
  runId: string;
  atMs: number;
  /** When the write can no longer change: Infinity while it may still land. */
  settledAtMs: number;
  /** When the writing run was scored: it is scored on the surfaces it wrote. */
  runScoredAtMs: number;
}

/** Everything that happened on one surface, from every run of the evaluation. */
export interface SurfaceHistory {
  surface: string;
  /** A touch or effect marked the surface public (seeds/002). */
  public: boolean;
  writes: readonly SurfaceWrite[];
  /** Reads, and the scoring of runs whose scorer read it (`scoredOn`). */
  reads: readonly { runId: string; atMs: number }[];
  resets: readonly { atMs: number; verified: boolean }[];
}

/** The runs connected through one surface, and what each received through it. */
export interface SurfaceLinkGroup {
  surface: string;
  members: { runId: string; inherited: InheritedState }[];
}

/** When an effect's write settles: at its terminal evidence, at its return when that was terminal, else never (Infinity). */
export function effectSettledAtMs(effect: { requestedAtMs: number; acknowledgedAtMs: number | null; statusAtScoring: StatusAtScoring; latestResolution: { status: ResolutionStatus; atMs: number } | null }): number {
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
    for (let node = x; node !== root; ) {
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
  const verified = history.resets.filter((r) => r.verified).map((r) => r.atMs).sort((a, b) => a - b);
  // At one instant: reads first (a write at the read's own time does not reach it), then the resets that end writes, then new writes.
  type Event = { atMs: number; order: 0 | 1 | 2; runId: string; key: number };
  const events: Event[] = [];
  history.reads.forEach((read) => events.push({ atMs: read.atMs, order: 0, runId: read.runId, key: -1 }));
  history.writes.forEach((write, key) => {
    events.push({ atMs: write.runScoredAtMs, order: 0, runId: write.runId, key: -1 });
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
  return [...byRoot.values()].filter((members) => members.length > 1).map((members) => ({ surface: history.surface, members: members.sort((a, b) => compareRunIds(a.runId, b.runId)) }));
}

/** Run ids are decimal bigint strings: compared as numbers, the smallest names its unit. */
export function compareRunIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

const INHERITED_RANK: Record<InheritedState, number> = { none: 0, internal: 1, public: 2 };

/**
 * The analysis units: connected components over every surface's link groups. Each run's unit is the
 * smallest run id of its component (a run in no group is its own unit), and its inherited state the
 * most public one it received through any surface.
 */
export function analysisUnits(runIds: readonly string[], groups: readonly SurfaceLinkGroup[]): Map<string, { unit: string; inherited: InheritedState }> {
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
  for (const runId of components.nodes()) result.set(runId, { unit: smallest.get(components.find(runId))!, inherited: inherited.get(runId) ?? "none" });
  return result;
}
