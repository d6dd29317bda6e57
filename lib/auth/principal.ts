import { createHash } from "node:crypto";
import { getSessionCookie } from "better-auth/cookies";
import { LRUCache } from "lru-cache";
import type { Db } from "../db/prisma";
import type { ForgetPrincipals } from "./sibling-messages";
import type { Auth } from "./auth";
import { isRole, type Role } from "./permissions";

/** Who is asking: a signed-in user, or a script holding one of a user's API keys (with that user's role). */
export interface Principal {
  userId: string;
  email: string;
  name: string;
  role: Role;
  via: "session" | "api_key";
}

/** The key of an `Authorization: Bearer …` header, or null when there is none. */
export function bearerToken(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

interface LookedUp {
  principal: Principal | null;
  /** The API key that authenticated the request, for its usage counters. */
  apiKeyId: string | null;
  /**
   * The user the credential belongs to, also when it is refused because that user is deactivated:
   * so that forgetUser after a reactivation drops the cached refusal too.
   */
  userId: string | null;
}

const NO_ONE: LookedUp = { principal: null, apiKeyId: null, userId: null };

/**
 * Resolves the principal of a request in PostgreSQL, uncached. A Bearer header is an API key and
 * nothing else: an invalid, revoked or expired one is refused outright (null), never taken as "no
 * key" so that a session cookie sent alongside cannot mask it. A banned user, or one without a
 * known role, has no principal.
 */
export async function resolvePrincipal(auth: Auth, db: Db, headers: Headers): Promise<Principal | null> {
  return (await lookUpPrincipal(auth, db, headers)).principal;
}

async function lookUpPrincipal(auth: Auth, db: Db, headers: Headers): Promise<LookedUp> {
  const key = bearerToken(headers);
  if (key !== null) {
    const verified = await auth.api.verifyApiKey({ body: { key } }).catch(() => null);
    if (!verified?.valid || !verified.key) return NO_ONE;
    const user = await db.user.findUnique({ where: { id: verified.key.referenceId } });
    if (!user) return NO_ONE;
    if (user.banned || !isRole(user.role)) return { ...NO_ONE, userId: user.id };
    return {
      principal: { userId: user.id, email: user.email, name: user.name, role: user.role, via: "api_key" },
      apiKeyId: verified.key.id,
      userId: user.id,
    };
  }
  if (!getSessionCookie(headers)) return NO_ONE;
  const session = await auth.api.getSession({ headers }).catch(() => null);
  if (!session) return NO_ONE;
  const { user } = session;
  const role = (user as { role?: unknown }).role;
  if (!isRole(role) || (user as { banned?: boolean | null }).banned) return { ...NO_ONE, userId: user.id };
  return { principal: { userId: user.id, email: user.email, name: user.name, role, via: "session" }, apiKeyId: null, userId: user.id };
}

/**
 * How long a verified API key or session (or the refusal of one) is trusted in a web process
 * before PostgreSQL is asked again: a key revoked, a user deactivated or a session signed out in
 * another instance's process stops working within this bound everywhere. In the process that made the
 * change it stops at once (forgetUser, forgetApiKey, clear), and in the web processes beside it as soon
 * as they hear it (`announce`, lib/auth/sibling-messages.ts).
 */
export const PRINCIPAL_CACHE_TTL_MS = 2_000;
/** API keys' usage counters (`request_count`, `last_request`) are written this often, not per request. */
export const API_KEY_USAGE_FLUSH_MS = 5_000;

interface Cached extends LookedUp {
  expiresAt: number;
}

export interface PrincipalResolverOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** Milliseconds, for expiry: a value, so that tests move time without sleeping. */
  now?: () => number;
  /** Told what forgetUser, forgetApiKey and clear dropped, for the instance's other web processes. */
  announce?: (forget: ForgetPrincipals) => void;
}

/**
 * Resolves principals with a short in-process cache keyed by the credential's SHA-256, so that a
 * request costs no database round trip while its credential is fresh, and counts API-key use in
 * memory until flushUsage writes the counts in one statement.
 */
export class PrincipalResolver {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly announce: ((forget: ForgetPrincipals) => void) | undefined;
  private readonly cache: LRUCache<string, Cached>;
  private readonly loading = new Map<string, Promise<Cached>>();
  private usage = new Map<string, { count: number; lastAt: Date }>();

  constructor(
    private readonly auth: Auth,
    private readonly db: Db,
    options: PrincipalResolverOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? PRINCIPAL_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
    this.announce = options.announce;
    // Bounded: made-up credentials are cached as refusals too, and must not grow the process.
    this.cache = new LRUCache({ max: options.maxEntries ?? 10_000 });
  }

  async resolve(headers: Headers): Promise<Principal | null> {
    const credential = bearerToken(headers) ?? getSessionCookie(headers);
    if (!credential) return null;
    const cacheKey = createHash("sha256").update(credential).digest("base64url");
    let entry = this.cache.get(cacheKey);
    if (!entry || entry.expiresAt <= this.now()) {
      // Concurrent requests with the same stale credential share one lookup.
      let pending = this.loading.get(cacheKey);
      if (!pending) {
        pending = lookUpPrincipal(this.auth, this.db, headers)
          .then((found) => {
            const fresh = { ...found, expiresAt: this.now() + this.ttlMs };
            this.cache.set(cacheKey, fresh);
            return fresh;
          })
          .finally(() => this.loading.delete(cacheKey));
        this.loading.set(cacheKey, pending);
      }
      entry = await pending;
    }
    if (entry.apiKeyId) this.recordUse(entry.apiKeyId);
    return entry.principal;
  }

  /** After a change to this user (role, deactivation or reactivation, password, sessions ended) made in this process. */
  forgetUser(userId: string): void {
    this.forgetAndAnnounce({ userId });
  }

  /** After this key was revoked in this process. */
  forgetApiKey(apiKeyId: string): void {
    this.forgetAndAnnounce({ apiKeyId });
  }

  /** After any change through Better Auth's own endpoints (sign-in, sign-out, password change). */
  clear(): void {
    this.forgetAndAnnounce({ all: true });
  }

  /** Drops the cached principals `forget` names, in this process only: what a sibling process announced. */
  forget(forget: ForgetPrincipals): void {
    if ("all" in forget) return this.cache.clear();
    for (const [key, entry] of this.cache.entries())
      if ("userId" in forget ? entry.userId === forget.userId : entry.apiKeyId === forget.apiKeyId) this.cache.delete(key);
  }

  private forgetAndAnnounce(forget: ForgetPrincipals): void {
    this.forget(forget);
    this.announce?.(forget);
  }

  private recordUse(apiKeyId: string): void {
    const counted = this.usage.get(apiKeyId);
    if (counted) {
      counted.count++;
      counted.lastAt = new Date(this.now());
    } else this.usage.set(apiKeyId, { count: 1, lastAt: new Date(this.now()) });
  }

  /** Adds the counted uses to each key's `request_count` and moves `last_request` forward, in one statement. */
  async flushUsage(): Promise<void> {
    if (this.usage.size === 0) return;
    const batch = this.usage;
    this.usage = new Map();
    const ids = [...batch.keys()];
    const counts = ids.map((id) => batch.get(id)!.count);
    const lastAts = ids.map((id) => batch.get(id)!.lastAt.toISOString());
    await this.db.$executeRaw`
      UPDATE api_keys k
         SET request_count = coalesce(k.request_count, 0) + u.count,
             last_request = greatest(k.last_request, u.last_at)
        FROM unnest(${ids}::text[], ${counts}::int[], ${lastAts}::timestamptz[]) AS u(id, count, last_at)
       WHERE k.id = u.id`;
  }
}
