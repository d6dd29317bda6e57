// Opening a share link from the web: rate-limited per client, then lib/share/share-links.ts.
import "server-only";
import type { RateLimiterPostgres } from "rate-limiter-flexible";
import { databaseUrl } from "../db/web-process-db";
import type { Db } from "../db/prisma";
import { isLimitReached, postgresRateLimiter } from "../db/rate-limiter";
import { readServerEnv } from "../env";
import { openShareLink } from "./share-links";

/** Per client address: SHARE_LOOKUPS_PER_MINUTE (60) lookups a minute, and a token that opens nothing costs 6 (ten guesses a minute). */
const FAILED_LOOKUP_COST = 6;
/** Tokens that open nothing, from all addresses together: a guesser with many addresses is capped too. */
const FAILED_LOOKUPS_PER_MINUTE_ALL = 300;
const holder = globalThis as typeof globalThis & {
  boundaryLabShareLimiters?: { perAddress: RateLimiterPostgres; failedAll: RateLimiterPostgres };
};
const limiters = () =>
  (holder.boundaryLabShareLimiters ??= {
    perAddress: postgresRateLimiter(databaseUrl(), {
      keyPrefix: "share-lookup",
      points: readServerEnv().SHARE_LOOKUPS_PER_MINUTE,
      durationSeconds: 60,
    }),
    failedAll: postgresRateLimiter(databaseUrl(), {
      keyPrefix: "share-failed-all",
      points: FAILED_LOOKUPS_PER_MINUTE_ALL,
      durationSeconds: 60,
    }),
  });

/**
 * The client's address: the web server's edge (workers/web.ts, lib/http/client-address.ts) leaves
 * exactly one in X-Forwarded-For, believed from a proxy only when TRUSTED_PROXIES names it.
 */
export function clientAddress(headers: Headers): string {
  return headers.get("x-forwarded-for")?.trim() || "unknown";
}

export type SharedLookup = Awaited<ReturnType<typeof openShareLink>> | { status: "rate_limited"; retryAfterSeconds: number };

export async function lookUpShareLink(db: Db, headers: Headers, token: string): Promise<SharedLookup> {
  const address = clientAddress(headers);
  const { perAddress, failedAll } = limiters();
  try {
    await perAddress.consume(address, 1);
    const all = await failedAll.get("all");
    if (all && all.consumedPoints >= FAILED_LOOKUPS_PER_MINUTE_ALL) throw all;
  } catch (error) {
    if (isLimitReached(error)) return { status: "rate_limited", retryAfterSeconds: Math.ceil(error.msBeforeNext / 1000) };
    throw error;
  }
  const opened = await openShareLink(db, token);
  if (opened.status === "invalid") {
    await perAddress.penalty(address, FAILED_LOOKUP_COST - 1);
    await failedAll.penalty("all", 1);
  }
  return opened;
}
