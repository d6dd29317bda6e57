// The web process's Prisma client. Server code only: never import this from a client component.
import "server-only";
import { readServerEnv } from "../env";
import { createPrisma, poolOf, type Db } from "./prisma";
import { poolSql, type SqlClient } from "./sql-transaction";

const holder = globalThis as typeof globalThis & { boundaryLabDb?: Db; boundaryLabSql?: SqlClient };

/**
 * One Prisma client per web process, created on first use (so `next build` needs no database) and
 * kept on globalThis so that dev-mode reloads do not open a new pool each time. Its statements, and
 * getSql's, are prepared once per connection (lib/db/prepared-statements.ts).
 */
export function getDb(): Db {
  holder.boundaryLabDb ??= createPrisma(databaseUrl(), 10, { preparedStatements: true });
  return holder.boundaryLabDb;
}

/** Raw SQL on getDb()'s pool without Prisma's client in between: for the pages' read-only raw queries. */
export function getSql(): SqlClient {
  holder.boundaryLabSql ??= poolSql(poolOf(getDb()));
  return holder.boundaryLabSql;
}

/** The web process's database: DATABASE_URL, which `npm start` sets for it. */
export function databaseUrl(): string {
  const env = readServerEnv();
  if (!env.DATABASE_URL) {
    throw new Error(
      "DATABASE_URL is not set. The web app is started by `npm start`, which starts (or connects to) PostgreSQL, migrates it and sets DATABASE_URL for the web process; to run `npm run web` yourself, set DATABASE_URL to a migrated database.",
    );
  }
  return env.DATABASE_URL;
}
