import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client";
import { preparedStatementName } from "./prepared-statements";

export type Db = PrismaClient;

const POOLS = Symbol.for("boundary-lab.prisma-pools");

// On globalThis: Next bundles this module more than once (pages, route handlers), and getDb's one
// client (lib/db/web-process-db.ts) may have been made by another copy than the one asking for its pool.
// A client that follows another (followingPrisma) finds its pool when asked, so each entry is a lookup.
const holder = globalThis as typeof globalThis & { [POOLS]?: WeakMap<PrismaClient, () => pg.Pool> };
const pools = (holder[POOLS] ??= new WeakMap<PrismaClient, () => pg.Pool>());

/**
 * A Prisma client on the JS engine through node-postgres (no engine binary, docs/stack.md), on a pool
 * poolOf() gives too. `preparedStatements`: every statement named (lib/db/prepared-statements.ts), for
 * the web process, whose reads repeat; writers' batches keep a plan made for their own parameters.
 */
export function createPrisma(connectionString: string, max = 10, options: { preparedStatements?: boolean } = {}): PrismaClient {
  // Idle connections let the process exit; one lost while idle (PostgreSQL restarted, a test database dropped) is replaced on next use.
  const pool = new pg.Pool({ connectionString, max, allowExitOnIdle: true });
  pool.on("error", () => {});
  const adapter = new PrismaPg(
    pool,
    options.preparedStatements ? { statementNameGenerator: (query) => preparedStatementName(query.sql, query.args.length) } : undefined,
  );
  const client = new PrismaClient({ adapter });
  pools.set(client, () => pool);
  return client;
}

/**
 * A client that is always `current()`: whatever holds it follows when the client behind it is
 * replaced (the worker's renewal after an outage), and poolOf() gives the current one's pool.
 */
export function followingPrisma(current: () => PrismaClient): PrismaClient {
  const following = new Proxy({} as PrismaClient, {
    get: (_, key) => {
      const client = current();
      const value: unknown = Reflect.get(client, key);
      return typeof value === "function" ? value.bind(client) : value;
    },
  });
  pools.set(following, () => poolOf(current()));
  return following;
}

/** The node-postgres pool under a client from createPrisma (lib/db/sql-transaction.ts). */
export function poolOf(db: PrismaClient): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("poolOf: this Prisma client was not made by createPrisma or followingPrisma");
  return pool();
}
