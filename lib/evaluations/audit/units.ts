// How analysis units are kept in evaluation_units (the units of more than one run, with their size and
// the surfaces that connect them): merged when a batch connects them, or rewritten after a recompute.
// Pure: audit/unit-store.ts and separation-recompute.ts read and write the rows these decide.
import { analysisUnits } from "../separation";

/** A unit as evaluation_units holds it. */
export interface StoredUnit {
  runs: number;
  surfaces: readonly string[] | null;
}

/**
 * Per link group, its surface and the units it now joins: a Map by surface (one group a surface, the
 * fast path), or a list of entries (a recompute, where a surface may hold several groups).
 */
export type UnitJoins = ReadonlyMap<string, ReadonlySet<string>> | readonly (readonly [string, ReadonlySet<string>])[];

/** The units a batch's links join, over every surface: the nodes of the merge. */
export function unitsJoined(unitsOn: UnitJoins): string[] {
  return [...new Set([...unitsOn].flatMap(([, units]) => [...units]))];
}

/**
 * Merges the units a batch connected (per link group, its surface and the units it now joins), transitively: every
 * component takes its smallest unit id, the sizes add up (a unit not stored is one new run), and the
 * unit keeps every surface that connects it. Answers each unit's component; the rows of
 * evaluation_units that change (a surface already connecting its unit, with no merge, changes none);
 * the stored units relabelled into a smaller one (`relabel`: their runs' analysis_unit; a run not yet
 * written, in `unstored`, takes its unit when it is); and the stored unit rows merged away (`gone`).
 */
export function mergedUnits(
  unitsOn: UnitJoins,
  stored: ReadonlyMap<string, StoredUnit>,
  unstored: ReadonlySet<string>,
): {
  components: Map<string, { unit: string }>;
  rows: { unit: string; runs: number; surfaces: string[] }[];
  relabel: { old: string; unit: string }[];
  gone: string[];
} {
  const nodes = unitsJoined(unitsOn);
  const components = analysisUnits(
    nodes,
    [...unitsOn].map(([surface, units]) => ({ surface, members: [...units].map((runId) => ({ runId, inherited: "none" as const })) })),
  );
  const next = new Map<string, { runs: number; surfaces: Set<string> }>();
  const of = (unit: string) => next.get(unit) ?? next.set(unit, { runs: 0, surfaces: new Set() }).get(unit)!;
  for (const node of nodes) {
    const unit = of(components.get(node)!.unit);
    unit.runs += stored.get(node)?.runs ?? 1;
    for (const surface of stored.get(node)?.surfaces ?? []) unit.surfaces.add(surface);
  }
  for (const [surface, units] of unitsOn) of(components.get([...units][0]!)!.unit).surfaces.add(surface);
  // Only rows that change are written: a surface already connecting its unit, no merge, leaves it as it was.
  const rows = [...next]
    .map(([unit, u]) => ({ unit, runs: u.runs, surfaces: [...u.surfaces].sort() }))
    .filter((row) => {
      const before = stored.get(row.unit);
      return !before || before.runs !== row.runs || (before.surfaces ?? []).length !== row.surfaces.length;
    });
  const moved = [...components].filter(([node, c]) => c.unit !== node).map(([node, c]) => ({ old: node, unit: c.unit }));
  // A stored unit that joins a smaller one is relabelled.
  const relabel = moved.filter((m) => !unstored.has(m.old));
  const gone = moved.map((m) => m.old).filter((unit) => stored.has(unit));
  return { components, rows, relabel, gone };
}

/**
 * The units of more than one run after a recompute, as rows of evaluation_units: each unit's size
 * (its runs in `units`) and the surfaces of its runs' links, sorted.
 */
export function recomputedUnitRows(
  units: readonly { id: string; unit: string }[],
  links: readonly { run_id: string; surface: string }[],
): { unit: string; runs: number; surfaces: string[] }[] {
  const sizes = new Map<string, number>();
  for (const { unit } of units) sizes.set(unit, (sizes.get(unit) ?? 0) + 1);
  const unitOf = new Map(units.map((u) => [u.id, u.unit]));
  const surfacesOf = new Map<string, Set<string>>();
  for (const link of links) {
    const unit = unitOf.get(link.run_id)!;
    (surfacesOf.get(unit) ?? surfacesOf.set(unit, new Set()).get(unit)!).add(link.surface);
  }
  return [...sizes]
    .filter(([, runs]) => runs > 1)
    .map(([unit, runs]) => ({ unit, runs, surfaces: [...(surfacesOf.get(unit) ?? [])].sort() }));
}
