import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { ensureMigrated } from "../db/migrate";
import { createPrisma, type Db } from "../db/prisma";

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

/** Creates a fresh, migrated database on the cluster at `adminUrl`; drop() removes it. Tests never share rows. */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `bl_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await ensureMigrated(url.toString());
  const db = createPrisma(url.toString());
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.$disconnect();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface DatabaseBeforeMigration {
  url: string;
  client: pg.Client;
  /** Applies the migration named and every one after it. */
  applyRest(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * A fresh database on the cluster at `adminUrl`, migrated up to the migration whose folder ends in
 * `_${migration}` (not included), for a test of what that migration does to rows stored before it.
 * Each file is applied as Prisma's driver adapter applies it: split at every semicolon.
 */
export async function databaseBeforeMigration(adminUrl: string, migration: string): Promise<DatabaseBeforeMigration> {
  const migrations = readdirSync("prisma/migrations")
    .filter((d) => /^\d+_/.test(d))
    .sort();
  const at = migrations.findIndex((d) => d.endsWith(`_${migration}`));
  if (at <= 0) throw new Error(`no migration named ${migration} after the first`);
  const name = `bl_test_${migration.slice(0, 20)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const apply = async (dir: string) => {
    for (const statement of readFileSync(path.join("prisma/migrations", dir, "migration.sql"), "utf8")
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean)) {
      await client.query(statement);
    }
  };
  for (const dir of migrations.slice(0, at)) await apply(dir);
  return {
    url: url.toString(),
    client,
    async applyRest() {
      for (const dir of migrations.slice(at)) await apply(dir);
    },
    async drop() {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
