import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { importLogs } from "@/lib/importers/import-logs";
import { databaseBeforeMigration, type TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { AGENTDOJO_RUNS } from "@/lib/testing/importer-fixtures";

// Evaluation names are unique, on a real PostgreSQL: the create route's 409 naming the
// evaluation that has the name, two imports racing to create one name, and the migration that
// renames the duplicates a database stored before the rule.
let database: TestDatabase;
let db: Db;
let create: (body: unknown) => Promise<{ status: number; json: Record<string, unknown> }>;

beforeAll(async () => {
  const made = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "names");
  database = made.database;
  db = database.db;
  const { key } = made;
  // Imported once the environment names the test database: the handler's getDb() reads it.
  const { POST } = await import("@/app/api/v1/evaluations/route");
  create = async (body) => {
    const response = await POST(
      new Request("http://localhost:3999/api/v1/evaluations", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      }),
      { params: Promise.resolve({}) },
    );
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

describe("POST /api/v1/evaluations with a name already taken", () => {
  it("answers 409 naming the existing evaluation, on the name field, after the schema's trim; another case is another name", async () => {
    const first = await create({ name: "tau-bench retail", harness: "inspect" });
    expect(first.status).toBe(201);
    const id = first.json.id as string;
    for (const name of ["tau-bench retail", "  tau-bench retail "]) {
      const again = await create({ name, effectPolicy: { tools: { "bank.*": "external" } } });
      expect(again).toEqual({
        status: 409,
        json: {
          error: {
            code: "name_taken",
            message: `name: an evaluation named "tau-bench retail" already exists (${id}); choose another name`,
            field: "name",
            details: { existing: { id, name: "tau-bench retail" } },
          },
        },
      });
    }
    expect((await create({ name: "Tau-bench retail" })).status).toBe(201);
    expect(await db.evaluation.count({ where: { name: "tau-bench retail" } })).toBe(1);
    // Nothing of a refused creation stays: its policy and rule went with its transaction.
    expect(await db.evaluationEffectPolicy.count()).toBe(await db.evaluation.count());
    expect(await db.exclusionRuleVersion.count({ where: { evaluationId: { not: null } } })).toBe(await db.evaluation.count());
  });

  it("creates one of several racing creations of a name; the others answer 409 with the winner", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => create({ name: "raced over HTTP" })));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    const winner = created[0]!.json.id;
    expect(answers.filter((a) => a.status === 409).map((a) => a.json.error)).toEqual(
      Array.from({ length: 3 }, () =>
        expect.objectContaining({ code: "name_taken", details: { existing: { id: winner, name: "raced over HTTP" } } }),
      ),
    );
  });
});

describe("two imports creating one evaluation name at once", () => {
  it("store both files in one evaluation: the import whose insert loses uses the winner's", async () => {
    // A third transaction holds the name uncommitted: both imports find no evaluation, and both
    // inserts wait on the unique index. Rolled back, one insert wins and the other collides with it.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("INSERT INTO evaluations (id, name) VALUES ($1, 'raced import')", [randomUUID()]);
      const files = [
        "runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json",
        "runs__gemini-2.0-flash-001__travel__user_task_0__none__none.json",
      ];
      const imports = files.map((file) => importLogs(db, [path.join(AGENTDOJO_RUNS, file)], { evaluationName: "raced import" }));
      // Counted outside the holder's transaction, where pg_stat_activity would stay as first read.
      const waiting = async () =>
        (
          await db.$queryRaw<
            [{ n: number }]
          >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
        )[0].n;
      await expect.poll(waiting, { timeout: 20_000 }).toBe(2);
      await holder.query("ROLLBACK");
      const reports = await Promise.all(imports);
      for (const report of reports)
        expect(report).toMatchObject({ files: 1, imported: 1, failed: [], skipped: [], evaluations: [{ name: "raced import", runs: 1 }] });
      const [a, b] = reports.map((r) => r.evaluations[0]!.id);
      expect(a).toBe(b);
      expect(await db.evaluation.findMany({ where: { name: "raced import" }, select: { id: true } })).toEqual([{ id: a }]);
      expect(await db.evaluationRun.count({ where: { evaluationId: a } })).toBe(2);
    } finally {
      await holder.end();
    }
  });
});

describe("migration unique_evaluation_names", () => {
  it("renames stored duplicates, the oldest keeping the name and later ones (k) by created_at then id, before the unique index", async () => {
    // A database migrated up to the migration before it, holding duplicates; then the migration.
    const before = await databaseBeforeMigration(inject("embeddedAdminUrl"), "unique_evaluation_names");
    const client = before.client;
    try {
      const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
      // [id, name, second of creation]: "tau" three times (two created in one millisecond: id decides),
      // "tau (2)" twice, "x" twice beside "x (2)".."x (4)" already taken, and names stored once.
      const rows: [number, string, number][] = [
        [1, "tau", 1],
        [3, "tau", 2],
        [2, "tau", 2],
        [4, "tau (2)", 0],
        [5, "tau (2)", 5],
        [6, "x", 1],
        [7, "x", 2],
        [8, "x (2)", 0],
        [9, "x (3)", 0],
        [10, "x (4)", 0],
        [11, "solo", 0],
        [12, "50%_off", 0],
      ];
      for (const [n, evaluationName, second] of rows) {
        await client.query("INSERT INTO evaluations (id, name, created_at) VALUES ($1, $2, $3)", [
          id(n),
          evaluationName,
          new Date(Date.UTC(2026, 11, 1, 10, 0, second)),
        ]);
      }
      await expect(client.query("CREATE UNIQUE INDEX probe ON evaluations (name)")).rejects.toThrow(/could not create unique index/);

      await before.applyRest();
      const names = Object.fromEntries(
        (await client.query<{ id: string; name: string }>("SELECT id, name FROM evaluations")).rows.map((r) => [r.id, r.name]),
      );
      expect(names).toEqual({
        [id(1)]: "tau",
        [id(2)]: "tau (3)",
        [id(3)]: "tau (4)",
        [id(4)]: "tau (2)",
        [id(5)]: "tau (2) (2)",
        [id(6)]: "x",
        [id(7)]: "x (5)",
        [id(8)]: "x (2)",
        [id(9)]: "x (3)",
        [id(10)]: "x (4)",
        [id(11)]: "solo",
        [id(12)]: "50%_off",
      });
      await expect(client.query("INSERT INTO evaluations (id, name) VALUES ($1, 'tau')", [id(13)])).rejects.toMatchObject({
        code: "23505",
        constraint: "evaluations_name_key",
      });
    } finally {
      await before.drop();
    }
  });
});
