// An evaluation's separation as the pure rules (lib/evaluations/separation.ts: surfaceLinkGroups,
// analysisUnits) give it from every surface's whole history, beside the separation the store kept: the
// reference the stored audit (fast path, recompute, links that only grew) must equal, in its tests.
// Reads every surface of the evaluation into this process, so never on a request path.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { surfaceHistories } from "../evaluations/audit/separation-recompute";
import { surfaceLinkRows } from "../evaluations/audit/links";
import { recomputedUnitRows } from "../evaluations/audit/units";
import { analysisUnits, compareRunIds, surfaceLinkGroups } from "../evaluations/separation";

/** Runs with their unit and inherited state, link groups as sets of `run:inherited` per surface, and units of more than one run. */
export interface SeparationView {
  runs: { id: string; unit: string; inherited: string }[];
  links: { surface: string; members: string[] }[];
  units: { unit: string; runs: number; surfaces: string[] }[];
}

const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
const byId =
  <T>(id: (item: T) => string) =>
  (a: T, b: T) =>
    compareRunIds(id(a), id(b));
const sortedLinks = (links: SeparationView["links"]) => links.sort(byKey((l) => `${l.surface}\u0000${l.members.join(",")}`));

/** The separation the store holds for the evaluation. */
export async function storedSeparation(db: Db, evaluationId: string): Promise<SeparationView> {
  const runs = z
    .array(z.object({ id: z.string(), unit: z.string(), inherited: z.string() }))
    .parse(
      await db.$queryRaw`SELECT id::text AS id, analysis_unit::text AS unit, inherited_state AS inherited FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid`,
    );
  const links = z.array(z.object({ surface: z.string(), members: z.array(z.string()) })).parse(
    await db.$queryRaw`SELECT surface, array_agg(run_id::text || ':' || inherited ORDER BY run_id) AS members FROM evaluation_surface_links
                          WHERE evaluation_id = ${evaluationId}::uuid GROUP BY surface, link_group`,
  );
  const units = z
    .array(z.object({ unit: z.string(), runs: z.number(), surfaces: z.array(z.string()) }))
    .parse(await db.$queryRaw`SELECT unit::text AS unit, runs, surfaces FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid`);
  return { runs: runs.sort(byId((r) => r.id)), links: sortedLinks(links), units: units.sort(byId((u) => u.unit)) };
}

/** The separation the pure rules give from every surface's history. */
export async function separationReference(db: Db, evaluationId: string): Promise<SeparationView> {
  const ids = z
    .array(z.object({ id: z.string() }))
    .parse(await db.$queryRaw`SELECT id::text AS id FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid`)
    .map((r) => r.id)
    .sort(compareRunIds);
  const surfaces = z
    .array(z.object({ surface: z.string() }))
    .parse(
      await db.$queryRaw`SELECT surface FROM evaluation_touches WHERE evaluation_id = ${evaluationId}::uuid
                         UNION SELECT surface FROM evaluation_effects WHERE evaluation_id = ${evaluationId}::uuid AND surface IS NOT NULL
                         UNION SELECT surface FROM evaluation_resets WHERE evaluation_id = ${evaluationId}::uuid`,
    )
    .map((r) => r.surface);
  const groups = (await db.$transaction((tx) => surfaceHistories(tx, evaluationId, surfaces))).flatMap(surfaceLinkGroups);
  const units = analysisUnits(ids, groups);
  const runs = ids.map((id) => ({ id, unit: units.get(id)!.unit, inherited: units.get(id)!.inherited }));
  const links = surfaceLinkRows(groups);
  const members = new Map<string, { surface: string; members: string[] }>();
  for (const link of links) {
    const key = `${link.surface}\u0000${link.link_group}`;
    (members.get(key) ?? members.set(key, { surface: link.surface, members: [] }).get(key)!).members.push(
      `${link.run_id}:${link.inherited}`,
    );
  }
  const sortedIds = byId((member: string) => member.split(":")[0]!);
  return {
    runs,
    links: sortedLinks([...members.values()].map((g) => ({ surface: g.surface, members: g.members.sort(sortedIds) }))),
    units: recomputedUnitRows(runs, links).sort(byId((u) => u.unit)),
  };
}
