// The separation audit's linking decisions as stored (audit/separation-incremental.ts and
// separation-recompute.ts only read and write): which of a batch's runs the surface stats link, which
// stored runs new stats may newly link, which links pass more state, what a group is named, and what a
// surface's link groups store. Pure: the paper's rules themselves are separation.ts's, used here.
import { INHERITED_RANK, morePublic, type InheritedState } from "../../replay/rules/inherited-state";
import type { RunRecord } from "../run-record-schema";
import {
  addToSurfaceStats,
  compareRunIds,
  effectSettledAtMs,
  historyHorizonMs,
  linkWithoutResets,
  resetBreaksRoutes,
  surfaceEvents,
  surfaceRunSpans,
  type LinkStats,
  type SurfaceHistory,
  type SurfaceLinkGroup,
  type SurfaceRunSpan,
  type SurfaceStats,
} from "../separation";

/** A surface as a batch of new runs mentions it. */
export interface BatchSurface {
  spans: SurfaceRunSpan[];
  /** The batch marks it public. */
  public: boolean;
  /** The first and last of the batch's resets of it that break routes, or null. */
  breakingResets: { firstMs: number; lastMs: number } | null;
  /** The batch's earliest event on it (a read, a write, a writer's scoring), or null. */
  firstEventMs: number | null;
  /** As SurfaceStats.horizonMs, over the batch's events (-Infinity: none). */
  horizonMs: number;
  /** One of the batch's writes has evidence older than itself. */
  predated: boolean;
}

export type BatchSurfaces = Map<string, BatchSurface>;

/** Each surface a batch of new runs mentions, with every run's span on it and what the fast path must know of its events. */
export function batchSurfaces(runs: readonly { id: string; run: RunRecord }[]): BatchSurfaces {
  const histories = new Map<
    string,
    SurfaceHistory & {
      writes: SurfaceHistory["writes"][number][];
      reads: SurfaceHistory["reads"][number][];
      resets: SurfaceHistory["resets"][number][];
    }
  >();
  const on = (surface: string) =>
    histories.get(surface) ?? histories.set(surface, { surface, public: false, writes: [], reads: [], resets: [] }).get(surface)!;
  for (const { id, run } of runs) {
    const scoredMs = run.scoredAt === undefined ? null : Date.parse(run.scoredAt);
    for (const t of run.touches ?? []) {
      const h = on(t.surface);
      if (t.public) h.public = true;
      if (t.op === "write") h.writes.push({ runId: id, atMs: Date.parse(t.at), settledAtMs: Date.parse(t.at), runScoredAtMs: scoredMs });
      else h.reads.push({ runId: id, atMs: Date.parse(t.at) });
    }
    for (const e of run.effects ?? []) {
      if (!e.surface) continue;
      const h = on(e.surface);
      if (e.public) h.public = true;
      const requestedAtMs = Date.parse(e.requestedAt);
      const settledAtMs = effectSettledAtMs({
        requestedAtMs,
        acknowledgedAtMs: e.acknowledgedAt === undefined ? null : Date.parse(e.acknowledgedAt),
        statusAtScoring: e.statusAtScoring,
        latestResolution: e.resolution ? { status: e.resolution.status, atMs: Date.parse(e.resolution.at) } : null,
      });
      h.writes.push({ runId: id, atMs: requestedAtMs, settledAtMs, runScoredAtMs: scoredMs });
    }
    if (scoredMs !== null) for (const surface of run.scoredOn ?? []) on(surface).reads.push({ runId: id, atMs: scoredMs });
    for (const r of run.resets ?? [])
      on(r.surface).resets.push({ atMs: Date.parse(r.at), verified: r.verified, canarySurvived: r.canary?.found ?? false });
  }
  return new Map([...histories].map(([surface, h]) => [surface, batchSurface(h)]));
}

/** A batch's history of one surface as the fast path sees it. */
export function batchSurface(h: SurfaceHistory): BatchSurface {
  const breaking = h.resets.filter(resetBreaksRoutes).map((r) => r.atMs);
  const eventTimes = surfaceEvents(h).map((e) => e.atMs);
  return {
    spans: surfaceRunSpans(h),
    public: h.public,
    breakingResets: breaking.length === 0 ? null : { firstMs: Math.min(...breaking), lastMs: Math.max(...breaking) },
    firstEventMs: eventTimes.length === 0 ? null : eventTimes.reduce((a, b) => Math.min(a, b)),
    horizonMs: historyHorizonMs(h),
    predated: h.writes.some((w) => w.settledAtMs < w.atMs),
  };
}

/**
 * A surface's stats after a batch of new runs, and whether they still decide its links
 * (separation.ts, SurfaceStats): the batch's events must all fall in the stored epoch, or, where the
 * batch resets the surface, open a new one: every stored event and settlement before the batch's first
 * reset, every event of the batch after its last. A reset at the epoch's own start changes nothing.
 * Otherwise the stats are marked `recompute`, and the surface is recomputed from its history.
 */
export function mergeSurfaceStats(stored: SurfaceStats | undefined, batch: BatchSurface): SurfaceStats {
  const start = stored?.epochStartMs ?? null;
  const merged = (base: LinkStats | null, epochStartMs: number | null, horizonMs: number | null, recompute: boolean): SurfaceStats => ({
    ...addToSurfaceStats(base, batch.spans, { public: (stored?.public ?? false) || batch.public }),
    epochStartMs,
    horizonMs,
    recompute,
  });
  if (stored?.recompute || batch.predated) return merged(stored ?? null, start, null, true);
  const resets = batch.breakingResets;
  if (resets === null || (resets.firstMs === start && resets.lastMs === start)) {
    if (start !== null && batch.firstEventMs !== null && batch.firstEventMs <= start) return merged(stored ?? null, start, null, true);
    const horizonMs = stored?.horizonMs === null ? null : Math.max(stored?.horizonMs ?? Number.NEGATIVE_INFINITY, batch.horizonMs);
    return merged(stored ?? null, start, horizonMs, false);
  }
  const storedHorizonMs = stored ? stored.horizonMs : Number.NEGATIVE_INFINITY;
  const opensEpoch =
    storedHorizonMs !== null &&
    resets.firstMs > storedHorizonMs &&
    (start === null || resets.firstMs > start) &&
    (batch.firstEventMs === null || batch.firstEventMs > resets.lastMs);
  return opensEpoch ? merged(null, resets.lastMs, batch.horizonMs, false) : merged(stored ?? null, start, null, true);
}

/**
 * The two ways a surface's links are kept after a batch: by its stats (`fast`: the batch's events fall
 * in the surface's latest epoch, or open a new one, mergeSurfaceStats, where every write stays live and
 * links are only ever added), or recomputed from its history once the batch is written (`slow`).
 */
export function separationPaths(
  surfaces: readonly string[],
  merged: ReadonlyMap<string, SurfaceStats>,
): { fast: string[]; slow: string[] } {
  return { slow: surfaces.filter((s) => merged.get(s)!.recompute), fast: surfaces.filter((s) => !merged.get(s)!.recompute) };
}

/**
 * Where on one surface the stored runs are that new stats may newly link. Adding runs only lowers
 * the earliest write and raises the latest read: a stored run is newly linked only if it read (or
 * was scored after writing) in (readLo, readHi] — after the new earliest write, up to the old one
 * (null readHi: no old one) — or wrote in [writeLo, writeHi) — from the old latest read (null: none)
 * to before the new one; and the runs the old stats named (`explicit`), whose "other run" changed.
 * A null readLo or writeHi: that side did not move. Only the latest epoch counts: a write at or before
 * its start (`epochStartMs`) is ended (separation.ts, SurfaceStats).
 */
export interface LinkableRange {
  surface: string;
  epochStartMs: number | null;
  readLoMs: number | null;
  readHiMs: number | null;
  writeLoMs: number | null;
  writeHiMs: number | null;
  explicit: string[];
}

/** The range of stored runs a surface's new stats may newly link; null where no stored run is in their epoch (a surface new to the evaluation, or a new epoch). */
export function newlyLinkableRange(surface: string, before: SurfaceStats | undefined, after: SurfaceStats): LinkableRange | null {
  if (!before || before.epochStartMs !== after.epochStartMs) return null;
  const earlierWrite = after.firstWrite !== null && (before.firstWrite === null || after.firstWrite.atMs < before.firstWrite.atMs);
  const laterRead = after.lastRead !== null && (before.lastRead === null || after.lastRead.atMs > before.lastRead.atMs);
  const explicit = [...new Set([before.firstWrite?.runId, before.lastRead?.runId].filter((id): id is string => id !== undefined))];
  return {
    surface,
    epochStartMs: after.epochStartMs,
    readLoMs: earlierWrite ? after.firstWrite!.atMs : null,
    readHiMs: earlierWrite ? (before.firstWrite?.atMs ?? null) : null,
    writeLoMs: laterRead ? (before.lastRead?.atMs ?? null) : null,
    writeHiMs: laterRead ? after.lastRead!.atMs : null,
    explicit,
  };
}

/**
 * The runs of a surface's history in a LinkableRange: those that read, or were scored after writing
 * there, in (readLo, readHi], those that wrote in [writeLo, writeHi) after the epoch's start, and the
 * explicit ones. The store finds them set-based instead (storedLinkCandidates: index range scans per
 * surface, since reading every surface's history is what the fast path exists to avoid at a million
 * runs); this is the rule that SQL mirrors, and audit/links.db.test.ts checks that the two agree.
 */
export function linkCandidateRuns(range: LinkableRange, history: SurfaceHistory): Set<string> {
  const inReads = (atMs: number) =>
    range.readLoMs !== null && atMs > range.readLoMs && atMs <= (range.readHiMs ?? Number.POSITIVE_INFINITY);
  const inWrites = (atMs: number) =>
    range.writeHiMs !== null &&
    atMs > (range.epochStartMs ?? Number.NEGATIVE_INFINITY) &&
    atMs >= (range.writeLoMs ?? Number.NEGATIVE_INFINITY) &&
    atMs < range.writeHiMs;
  const runs = new Set(range.explicit);
  for (const read of history.reads) if (inReads(read.atMs)) runs.add(read.runId);
  for (const write of history.writes) {
    if (write.runScoredAtMs !== null && inReads(write.runScoredAtMs)) runs.add(write.runId);
    if (inWrites(write.atMs)) runs.add(write.runId);
  }
  return runs;
}

/** A stored run in a LinkableRange: its span on the surface, its unit, and what it receives there already (null: it has no link there). */
export interface LinkCandidate extends SurfaceRunSpan {
  surface: string;
  unit: string;
  inherited: InheritedState | null;
}

/** A link to store: a run connected through a surface, and what it receives there. */
export interface NewLink {
  surface: string;
  runId: string;
  inherited: InheritedState;
}

/** A stored run's link from the surface's new stats: null when they link it nowhere, or pass it no more public state than its stored link. */
export function storedRunLink(stats: SurfaceStats, candidate: LinkCandidate): InheritedState | null {
  const inherited = linkWithoutResets(stats, candidate);
  if (inherited === null || (candidate.inherited !== null && INHERITED_RANK[candidate.inherited] >= INHERITED_RANK[inherited])) return null;
  return inherited;
}

/**
 * Per linked surface, the stored run whose link names the group of the surface's latest epoch: the
 * epoch's first writer, which every link in it joins (a reader after another run's write is joined
 * with every write before that read). None where the batch opened a new epoch, or the epoch had no write.
 */
export function epochGroupAnchors(
  linked: Iterable<string>,
  stored: ReadonlyMap<string, SurfaceStats>,
  merged: ReadonlyMap<string, SurfaceStats>,
): { surface: string; runId: string }[] {
  return [...linked].flatMap((surface) => {
    const before = stored.get(surface);
    if (!before?.firstWrite || before.epochStartMs !== merged.get(surface)!.epochStartMs) return [];
    return [{ surface, runId: before.firstWrite.runId }];
  });
}

/** Adds `unit` to the units a surface's group joins. */
export function joinUnit(unitsOn: Map<string, Set<string>>, surface: string, unit: string): void {
  (unitsOn.get(surface) ?? unitsOn.set(surface, new Set()).get(surface)!).add(unit);
}

/**
 * The links a batch of new runs adds on the surfaces its stats decide (`fast`): each batch run the
 * merged stats link (linkWithoutResets), and each stored candidate newly linked or now receiving more
 * public state. With them, per surface, the units its group now joins: a new run is its own unit
 * until merged, a stored one brings its unit.
 */
export function batchLinks(
  fast: readonly string[],
  merged: ReadonlyMap<string, SurfaceStats>,
  batch: BatchSurfaces,
  candidates: readonly LinkCandidate[],
): { links: NewLink[]; unitsOn: Map<string, Set<string>> } {
  const links: NewLink[] = [];
  const unitsOn = new Map<string, Set<string>>();
  for (const surface of fast) {
    const stats = merged.get(surface)!;
    for (const span of batch.get(surface)!.spans) {
      const inherited = linkWithoutResets(stats, span);
      if (inherited === null) continue;
      links.push({ surface, runId: span.runId, inherited });
      joinUnit(unitsOn, surface, span.runId);
    }
  }
  for (const c of candidates) {
    const inherited = storedRunLink(merged.get(c.surface)!, c);
    if (inherited === null) continue;
    links.push({ surface: c.surface, runId: c.runId, inherited });
    joinUnit(unitsOn, c.surface, c.unit);
  }
  return { links, unitsOn };
}

/**
 * The stored surfaces a batch made public. The runs that received internal state through such a
 * surface now receive public state (linkWithoutResets: a reader of a public surface receives public
 * state); the store flips those links in one statement, and the db test that compares the fast path
 * with a full recompute (evaluations.db.test.ts) covers a surface made public later.
 */
export function surfacesMadePublic(
  fast: readonly string[],
  stored: ReadonlyMap<string, SurfaceStats>,
  merged: ReadonlyMap<string, SurfaceStats>,
): string[] {
  return fast.filter((s) => stored.has(s) && !stored.get(s)!.public && merged.get(s)!.public);
}

/**
 * The name of each linked surface's group: the group of the surface's latest epoch keeps its stored
 * name (epochGroupAnchors finds it); a new group is named by its smallest run.
 */
export function linkGroupNames(stored: readonly { surface: string; linkGroup: string }[], links: readonly NewLink[]): Map<string, string> {
  const groupOf = new Map<string, string>();
  for (const e of stored) groupOf.set(e.surface, e.linkGroup);
  const named = new Set(groupOf.keys());
  for (const link of links) {
    const group = groupOf.get(link.surface);
    if (!named.has(link.surface) && (group === undefined || compareRunIds(link.runId, group) < 0)) groupOf.set(link.surface, link.runId);
  }
  return groupOf;
}

/** What each of the batch's linked runs is written with: its merged unit, and the most public state any of its links passes. */
export function batchRunAudit(
  links: readonly NewLink[],
  batchRuns: ReadonlySet<string>,
  units: ReadonlyMap<string, { unit: string }>,
): Map<string, { unit: string; inherited: InheritedState }> {
  const audit = new Map<string, { unit: string; inherited: InheritedState }>();
  for (const link of links) {
    if (!batchRuns.has(link.runId)) continue;
    audit.set(link.runId, {
      unit: units.get(link.runId)!.unit,
      inherited: morePublic(audit.get(link.runId)?.inherited ?? "none", link.inherited),
    });
  }
  return audit;
}

/** A row of evaluation_surface_links: a run in a surface's link group (named by a run of it), and what it receives there. */
export interface LinkRow {
  surface: string;
  run_id: string;
  link_group: string;
  inherited: InheritedState;
}

/** A surface's link groups as rows of evaluation_surface_links: each group named by its first (smallest) run. */
export function surfaceLinkRows(groups: readonly SurfaceLinkGroup[]): LinkRow[] {
  return groups.flatMap((group) =>
    group.members.map((member) => ({
      surface: group.surface,
      run_id: member.runId,
      link_group: group.members[0]!.runId,
      inherited: member.inherited,
    })),
  );
}

/** Stored link rows back as link groups, one per (group, surface). */
export function linkGroupsOfRows(rows: readonly LinkRow[]): SurfaceLinkGroup[] {
  const byGroup = new Map<string, SurfaceLinkGroup>();
  for (const link of rows) {
    const key = `${link.link_group}\u0000${link.surface}`;
    let group = byGroup.get(key);
    if (!group) byGroup.set(key, (group = { surface: link.surface, members: [] }));
    group.members.push({ runId: link.run_id, inherited: link.inherited });
  }
  return [...byGroup.values()];
}

/**
 * How recomputed link rows differ from the stored ones of the same surfaces, when they only grew: no
 * stored link is gone, none passes less state, and the runs of each stored group are still in one
 * group. Then units can only merge (unit-store.ts, mergeUnits) and only the rows in `changed` need
 * writing. `joins`: per group that changed, its surface and the runs whose units it joins (its changed
 * runs and the run that names it: a group that kept its name holds every stored group merged into it
 * under that name, and the others' runs changed name). null when a link was lost or a group split: the
 * units must be recomputed from their links.
 */
export function linkGrowth(
  stored: readonly LinkRow[],
  recomputed: readonly LinkRow[],
): { changed: LinkRow[]; joins: [surface: string, runs: string[]][] } | null {
  const key = (surface: string, id: string) => `${surface}\u0000${id}`;
  const now = new Map(recomputed.map((row) => [key(row.surface, row.run_id), row]));
  const groupNow = new Map<string, string>();
  for (const before of stored) {
    const after = now.get(key(before.surface, before.run_id));
    if (!after || INHERITED_RANK[after.inherited] < INHERITED_RANK[before.inherited]) return null;
    const group = key(before.surface, before.link_group);
    if ((groupNow.get(group) ?? after.link_group) !== after.link_group) return null;
    groupNow.set(group, after.link_group);
  }
  const was = new Map(stored.map((row) => [key(row.surface, row.run_id), row]));
  const changed = recomputed.filter((row) => {
    const before = was.get(key(row.surface, row.run_id));
    return !before || before.link_group !== row.link_group || before.inherited !== row.inherited;
  });
  const joins = new Map<string, [surface: string, runs: string[]]>();
  for (const row of changed) {
    const group = key(row.surface, row.link_group);
    const join = joins.get(group) ?? joins.set(group, [row.surface, [row.link_group]]).get(group)!;
    if (row.run_id !== row.link_group) join[1].push(row.run_id);
  }
  return { changed, joins: [...joins.values()] };
}
