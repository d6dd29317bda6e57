import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client";

export type Db = PrismaClient;

const pools = new WeakMap<PrismaClient, pg.Pool>();

/** A Prisma client on the JS engine through node-postgres (no engine binary, docs/stack.md), on a pool poolOf() gives too. */
export function createPrisma(connectionString: string, max = 10): PrismaClient {
  // Idle connections let the process exit; one lost while idle (PostgreSQL restarted, a test database dropped) is replaced on next use.
  const pool = new pg.Pool({ connectionString, max, allowExitOnIdle: true });
  pool.on("error", () => {});
  const client = new PrismaClient({ adapter: new PrismaPg(pool) });
  pools.set(client, pool);
  return client;
}

/** The node-postgres pool under a client from createPrisma (lib/db/sql-transaction.ts). */
export function poolOf(db: PrismaClient): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("poolOf: this Prisma client was not made by createPrisma");
  return pool;
}
