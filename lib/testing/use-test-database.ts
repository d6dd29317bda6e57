// The per-file test database of the *.db.test.ts files, in one place: a fresh migrated database on
// the embedded cluster (vitest's global setup provides its admin URL) before the file's tests,
// dropped after them, so that no two files share rows.
import { afterAll, beforeAll, inject } from "vitest";
import { createTestDatabase, type TestDatabase } from "./database";

/** Registers the file's database hooks; `onReady` receives the database once it exists (assign what the tests use). */
export function useTestDatabase(onReady: (database: TestDatabase) => void): void {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
    onReady(database);
  });
  afterAll(async () => {
    await database?.drop();
  });
}
