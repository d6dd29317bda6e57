// The accounts' db tests' set-up (lib/auth/*.db.test.ts): a fresh database with Better Auth on it,
// and a domain error's refusal as the tests compare it.
import type { Db } from "../db/prisma";
import { readServerEnv } from "../env";
import { DomainError } from "../errors";
import { createAuth, type Auth } from "../auth/auth";
import { useTestDatabase } from "./use-test-database";

export const TEST_PASSWORD = "a password long enough";

/** Registers the file's database hooks; `onReady` receives the database and Better Auth on it. */
export function useAuthTestDatabase(onReady: (db: Db, auth: Auth) => void): void {
  useTestDatabase((database) =>
    onReady(
      database.db,
      createAuth(
        database.db,
        readServerEnv({ BOUNDARY_LAB_URL: "http://localhost:3999", BETTER_AUTH_SECRET: "x".repeat(40) }),
        database.url,
      ),
    ),
  );
}

/** What a promise's DomainError says (kind, code, field), or null when it resolves. */
export const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? { kind: error.kind, code: error.code, field: error.field } : error),
  );
