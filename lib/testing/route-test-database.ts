// For tests that call route handlers themselves: a test database the handlers use (their getDb()
// reads DATABASE_URL, their auth the secret and origin set here), with one account holding an API key.
import { createAccount, createApiKey } from "../auth/accounts";
import { createAuth } from "../auth/auth";
import type { Role } from "../auth/permissions";
import { readServerEnv } from "../env";
import { createTestDatabase, type TestDatabase } from "./database";

export const ROUTE_TEST_ORIGIN = "http://localhost:3999";

/** Import the route modules after this resolves: they read the environment it sets. */
export async function routeTestDatabase(adminUrl: string, role: Role, keyName: string): Promise<{ database: TestDatabase; key: string }> {
  const database = await createTestDatabase(adminUrl);
  Object.assign(process.env, { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "s".repeat(40), BOUNDARY_LAB_URL: ROUTE_TEST_ORIGIN });
  const auth = createAuth(database.db, readServerEnv(), database.url);
  const account = await createAccount(auth, { email: `${role}@example.test`, password: "a password long enough", role });
  return { database, key: (await createApiKey(auth, account.id, keyName)).key };
}
