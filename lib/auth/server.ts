// The web process's Better Auth instance and principal resolver. Server code only.
import "server-only";
import { databaseUrl, getDb } from "../db/web-process-db";
import { readServerEnv } from "../env";
import { createAuth, type Auth } from "./auth";
import { onSiblingMessage, tellSiblings } from "./sibling-messages";
import { API_KEY_USAGE_FLUSH_MS, PrincipalResolver } from "./principal";

const holder = globalThis as typeof globalThis & { boundaryLabAuth?: Auth; boundaryLabPrincipals?: PrincipalResolver };

/** Created on first use, so that `next build` needs neither a database nor a secret. */
export function getAuth(): Auth {
  holder.boundaryLabAuth ??= createAuth(getDb(), readServerEnv(), databaseUrl());
  return holder.boundaryLabAuth;
}

/** This process's cached principals; API keys' usage counters are written every API_KEY_USAGE_FLUSH_MS. */
export function getPrincipalResolver(): PrincipalResolver {
  if (holder.boundaryLabPrincipals) return holder.boundaryLabPrincipals;
  const resolver = new PrincipalResolver(getAuth(), getDb(), { announce: tellSiblings });
  onSiblingMessage((forget) => resolver.forget(forget));
  setInterval(() => {
    resolver.flushUsage().catch((error: unknown) => console.error(`api key usage: ${(error as Error).message}`));
  }, API_KEY_USAGE_FLUSH_MS).unref();
  holder.boundaryLabPrincipals = resolver;
  return resolver;
}
