// Accounts, sessions and API keys: Better Auth 1.7.25 on Prisma (docs/accounts.md). Server only.
import { apiKey } from "@better-auth/api-key";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { admin } from "better-auth/plugins";
import { adminAc, userAc } from "better-auth/plugins/admin/access";
import type { Db } from "../db/prisma";
import { isLimitReached, postgresRateLimiter } from "../db/rate-limiter";
import { baseUrlOf, type ServerEnv } from "../env";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./account-schemas";
import { betterAuthLog } from "./log";
import { authSecret } from "./secret";

/** API keys are shown once, start with this prefix and are stored hashed. */
export const API_KEY_PREFIX = "bl_";

/**
 * Failed sign-ins per account in a row, whatever address they come from (a success resets the
 * count): a guesser with many addresses is still stopped. Counted in PostgreSQL, shared by every
 * web process.
 */
const SIGN_IN_ATTEMPTS_PER_ACCOUNT = 10;
const SIGN_IN_ACCOUNT_WINDOW_S = 15 * 60;

/** `databaseUrl`: the database `db` uses, for the sign-in limiter's counters. */
export function createAuth(db: Db, env: ServerEnv, databaseUrl: string) {
  const perAccount = postgresRateLimiter(databaseUrl, {
    keyPrefix: "sign-in-account",
    points: SIGN_IN_ATTEMPTS_PER_ACCOUNT,
    durationSeconds: SIGN_IN_ACCOUNT_WINDOW_S,
  });
  const baseURL = baseUrlOf(env);
  const loopbackTwin = baseURL.replace("//localhost:", "//127.0.0.1:");
  return betterAuth({
    appName: "Boundary Lab",
    baseURL,
    secret: authSecret(env),
    // Browsers reach a local instance as localhost or 127.0.0.1; any other origin is refused (403).
    trustedOrigins: [...new Set([baseURL, loopbackTwin])],
    database: prismaAdapter(db, { provider: "postgresql" }),
    // Accounts are made by an admin (or `npm run user:create`, or the first-run setup page), never by sign-up.
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
    },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    telemetry: { enabled: false },
    logger: { level: "warn", log: betterAuthLog },
    // Counted in PostgreSQL so that every web process shares the limits.
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 300,
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/change-password": { window: 60, max: 5 },
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/email") return;
        const email = signInEmail(ctx.body);
        try {
          await perAccount.consume(email);
        } catch (error) {
          if (!isLimitReached(error)) throw error;
          throw new APIError("TOO_MANY_REQUESTS", {
            message: `too many failed sign-ins for this account: try again in ${Math.ceil(error.msBeforeNext / 1000)} s`,
          });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/sign-in/email" && ctx.context.newSession) await perAccount.delete(signInEmail(ctx.body));
      }),
    },
    plugins: [
      admin({
        defaultRole: "viewer",
        adminRoles: ["admin"],
        roles: { admin: adminAc, editor: userAc, reviewer: userAc, viewer: userAc },
      }),
      apiKey({
        defaultPrefix: API_KEY_PREFIX,
        defaultKeyLength: 64,
        // Harnesses call the API many times a day; sign-in and share lookups carry the rate limits.
        rateLimit: { enabled: false },
        enableMetadata: false,
      }),
      nextCookies(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const signInEmail = (body: unknown) =>
  String((body as { email?: unknown } | undefined)?.email ?? "")
    .trim()
    .toLowerCase();
