// Rate limits counted in PostgreSQL (rate-limiter-flexible's PostgreSQL store), so that every web
// process of one instance shares them: two processes must not double a limit.
import pg from "pg";
import { RateLimiterPostgres } from "rate-limiter-flexible";

const holder = globalThis as typeof globalThis & { boundaryLabLimiterPools?: Map<string, pg.Pool> };

/**
 * One small pool per database for every limiter of the process (a limit check is one statement). Its
 * commits do not wait for the write-ahead log's flush (synchronous_commit off): a counter is a
 * minute's tally whose last increments a crash may lose, and waiting on the flush, with the row locked,
 * queued every share-link lookup of one address behind the one before it.
 */
function poolFor(databaseUrl: string): pg.Pool {
  const pools = (holder.boundaryLabLimiterPools ??= new Map());
  let pool = pools.get(databaseUrl);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 4,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      options: "-c synchronous_commit=off",
    });
    // An idle connection lost (PostgreSQL restarted) must not end the process; the next check reconnects.
    pool.on("error", (error: Error) => console.error(`rate limiter: ${error.message}`));
    pools.set(databaseUrl, pool);
  }
  return pool;
}

/** A limiter of `points` per `durationSeconds` per key, its counters in the table rate_limit_counters (migrated). */
export function postgresRateLimiter(
  databaseUrl: string,
  options: { keyPrefix: string; points: number; durationSeconds: number },
): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: poolFor(databaseUrl),
    storeType: "pool",
    tableName: "rate_limit_counters",
    tableCreated: true,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
  });
}

/**
 * Whether a limiter's rejection says the limit is reached (its RateLimiterRes), rather than that the
 * store failed. Told by shape, not instanceof: a limiter kept on globalThis is shared by Next's
 * bundles, each with its own copy of the class, and a share page opened after the API had made the
 * limiter saw a foreign RateLimiterRes, rethrew it, and answered 500 instead of "too many requests".
 */
export function isLimitReached(error: unknown): error is { msBeforeNext: number; remainingPoints: number } {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { msBeforeNext?: unknown }).msBeforeNext === "number" &&
    typeof (error as { remainingPoints?: unknown }).remainingPoints === "number" &&
    !(error instanceof Error)
  );
}
