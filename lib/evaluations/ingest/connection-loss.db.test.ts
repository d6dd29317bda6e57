import pg from "pg";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import type { TestDatabase } from "../../testing/database";
import { POLICY, syntheticRun } from "../../testing/synthetic-evaluation-runs";
import { useTestDatabase } from "../../testing/use-test-database";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "./ingest-runs";

// An ingest whose connection is lost mid-transaction (a PostgreSQL restart, a failover, an admin's
// pg_terminate_backend): the request fails, nothing of the batch is written, the process lives on,
// and the client's retry of the same batch stores every run exactly once (ingestion is idempotent).
let database: TestDatabase;
let db: Db;

useTestDatabase((created) => {
  database = created;
  db = created.db;
});

const BATCH = 1_000;

/** Terminates every other backend of the database that is inside a transaction, once one is; resolves with how many it ended. */
async function terminateOpenTransaction(url: string, stop: () => boolean): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    while (!stop()) {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND xact_start IS NOT NULL`,
      );
      if (rows.length > 0) return rows.length;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return 0;
  } finally {
    await admin.end();
  }
}

describe("an ingest that loses its connection", () => {
  it("fails, writes nothing, and its retry stores each run exactly once", async () => {
    const id = await createEvaluation(db, { name: "connection lost", effectPolicy: POLICY }, null);
    const runs = Array.from({ length: BATCH }, (_, i) => syntheticRun(i));

    let settled = false;
    const ingest = ingestRuns(db, id, runs).finally(() => (settled = true));
    const [outcome, terminated] = await Promise.all([
      ingest.then(
        () => "stored",
        (error: Error) => error.message,
      ),
      terminateOpenTransaction(database.url, () => settled),
    ]);
    expect(terminated).toBeGreaterThan(0);
    expect(outcome).toMatch(/terminat|Connection/i);
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(0);

    const retried = await ingestRuns(db, id, runs);
    expect(retried.filter((r) => r.status !== "created")).toEqual([]);
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(BATCH);
    expect((await ingestRuns(db, id, runs)).every((r) => r.status === "unchanged")).toBe(true);
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(BATCH);
  });
});
