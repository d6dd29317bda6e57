// How much a benchmark's rows take on disk: the database in all, each table (with its TOAST) and index.
import { z } from "zod";
import type { Db } from "../db/prisma";

export interface DatabaseSize {
  total: number;
  relations: Map<string, { kind: "table" | "index"; bytes: number }>;
}

/** The database's size, and each table's (with its TOAST) and index's, in bytes: one query. */
export async function databaseSize(db: Db): Promise<DatabaseSize> {
  const rows = z
    .array(z.object({ name: z.string(), kind: z.enum(["table", "index"]), bytes: z.coerce.number(), total: z.coerce.number() }))
    .parse(
      await db.$queryRaw`
        SELECT c.relname AS name, CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS kind,
               CASE c.relkind WHEN 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END AS bytes,
               pg_database_size(current_database()) AS total
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')`,
    );
  return { total: rows[0]?.total ?? 0, relations: new Map(rows.map((r) => [r.name, { kind: r.kind, bytes: r.bytes }])) };
}

/** What `runs` runs added: in all, and the eight relations that grew most, each per million runs. */
export function sizeGrowth(before: DatabaseSize, after: DatabaseSize, runs: number) {
  const perMillion = (bytes: number) => Math.round((bytes * 1_000_000) / runs);
  const largestRelations = [...after.relations]
    .map(([name, { kind, bytes }]) => ({ name, kind, grew: bytes - (before.relations.get(name)?.bytes ?? 0) }))
    .sort((a, b) => b.grew - a.grew)
    .slice(0, 8)
    .map(({ name, kind, grew }) => ({ name, kind, bytesPerMillionRuns: perMillion(grew) }));
  return { databaseBytes: after.total, bytesPerMillionRuns: perMillion(after.total - before.total), largestRelations };
}
