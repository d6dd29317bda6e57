// The web process's Better Auth instance. Server code only.
import { getDb } from "../db/client";
import { readServerEnv } from "../env";
import { createAuth, type Auth } from "./auth";

const holder = globalThis as typeof globalThis & { boundaryLabAuth?: Auth };

/** Created on first use, so that `next build` needs neither a database nor a secret. */
export function getAuth(): Auth {
  holder.boundaryLabAuth ??= createAuth(getDb(), readServerEnv());
  return holder.boundaryLabAuth;
}
