import { randomBytes } from "node:crypto";
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
