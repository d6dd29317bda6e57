import { createPrisma, followingPrisma, type Db } from "../db/prisma";

/** Connections per worker client: the batch writer, the experiment cache and the heartbeat. */
const POOL_SIZE = 8;
/** Ending a client whose pool lost a connection waits for it forever (below): bounded. */
const DISCONNECT_TIMEOUT_MS = 5_000;

const bounded = (promise: Promise<unknown>) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(resolve, DISCONNECT_TIMEOUT_MS).unref())]);

/**
 * A Prisma client that can be swapped for a fresh one behind the same reference. Prisma 6.19 keeps a
 * connection checked out for good when its transaction loses the server (the failed ROLLBACK skips
 * the release): every database outage during a batch store cost the pool a connection until none was
 * left. After an outage the worker moves to a fresh client (renew).
 */
export class RenewableDb {
  private current: Db;
  /** Always the current client: whatever holds it follows a renewal. */
  readonly db: Db;

  constructor(private readonly databaseUrl: string) {
    this.current = createPrisma(databaseUrl, POOL_SIZE);
    this.db = followingPrisma(() => this.current);
  }

  renew(): void {
    const old = this.current;
    this.current = createPrisma(this.databaseUrl, POOL_SIZE);
    void bounded(old.$disconnect()).catch(() => {});
  }

  async close(): Promise<void> {
    await bounded(this.current.$disconnect());
  }
}
