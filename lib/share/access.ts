// Opening a share link from the web: rate-limited per client, then lib/share/share-links.ts.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Db } from "../db/prisma";
import { openShareLink } from "./share-links";

/** Per client address: 60 lookups a minute, and a token that opens nothing costs 6 (ten guesses a minute). */
const LOOKUPS_PER_MINUTE = 60;
const FAILED_LOOKUP_COST = 6;
/**
 * Tokens that open nothing, from all addresses together: the address comes from X-Forwarded-For,
 * which a client without a proxy in front can set, so guessing is also capped instance-wide.
 */
const FAILED_LOOKUPS_PER_MINUTE_ALL = 300;
const holder = globalThis as typeof globalThis & { boundaryLabShareLimiters?: { perAddress: RateLimiterMemory; failedAll: RateLimiterMemory } };
const limiters = () =>
  (holder.boundaryLabShareLimiters ??= {
    perAddress: new RateLimiterMemory({ points: LOOKUPS_PER_MINUTE, duration: 60 }),
    failedAll: new RateLimiterMemory({ points: FAILED_LOOKUPS_PER_MINUTE_ALL, duration: 60 }),
  });

/** The client's address as the web server saw it (Next sets x-forwarded-for); "unknown" shares one budget. */
export function clientAddress(headers: Headers): string {
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || headers.get("x-real-ip") || "unknown";
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
    if (error instanceof RateLimiterRes) return { status: "rate_limited", retryAfterSeconds: Math.ceil(error.msBeforeNext / 1000) };
    throw error;
  }
  const opened = await openShareLink(db, token);
  if (opened.status === "invalid") {
    await perAddress.penalty(address, FAILED_LOOKUP_COST - 1);
    await failedAll.penalty("all", 1);
  }
  return opened;
}
