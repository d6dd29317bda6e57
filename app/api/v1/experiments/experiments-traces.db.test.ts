import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { queuedUnitJobCount } from "@/lib/experiments/experiment-jobs";
import { readServerEnv } from "@/lib/env";
import { replayConfigSchema } from "@/lib/replay/rules/config";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { loadGroundTruthTraces } from "@/lib/traces/library";

// POST /api/v1/experiments with a trace selection, through apiRoute: the selection resolved against
// the library and stored as the experiment's traces, its units enqueued per trace; bad selections
// refused naming the field, nothing created.
let database: TestDatabase;
let key: string;
let POST: typeof import("./route").POST;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" };
  Object.assign(process.env, env);
  await loadGroundTruthTraces(database.db);
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const editor = await createAccount(auth, { email: "editor@traces.test", password: "a long enough password", role: "editor" });
  ({ key } = await createApiKey(auth, editor.id, "traces"));
  ({ POST } = await import("./route"));
});
afterAll(async () => {
  await database?.drop();
});

const post = (body: unknown) =>
  POST(
    new Request("http://localhost:3999/api/v1/experiments", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", origin: "http://localhost:3999" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
const grid = { delaysMs: [0, 25], schedules: 1, repetitions: 1 };

describe("POST /api/v1/experiments with library traces", () => {
  it("resolves a suite into its replayable ground-truth tasks and enqueues the grid for each", async () => {
    const response = await post({ ...grid, traceSelection: { suite: "banking" } });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const config = replayConfigSchema.parse((await database.db.experiment.findUniqueOrThrow({ where: { id } })).config);
    expect(config.traces).toHaveLength(12);
    expect(config.traces[0]!.taskId).toBe("banking/user_task_0");
    expect(await queuedUnitJobCount(database.db, id)).toBe(12 * 2 * 12);
  });

  it("takes tasks, and keeps the paper's trace when no trace is given", async () => {
    const byTask = await post({ ...grid, traceSelection: { tasks: ["banking/user_task_15"] } });
    expect(byTask.status).toBe(201);
    const config = replayConfigSchema.parse(
      (await database.db.experiment.findUniqueOrThrow({ where: { id: ((await byTask.json()) as { id: string }).id } })).config,
    );
    expect(config.traces.map((t) => [t.taskId, t.calls.filter((c) => c.stateChanging).length])).toEqual([["banking/user_task_15", 3]]);
    const paper = await post(grid);
    const stored = replayConfigSchema.parse(
      (await database.db.experiment.findUniqueOrThrow({ where: { id: ((await paper.json()) as { id: string }).id } })).config,
    );
    expect(stored.traces).toEqual(replayConfigSchema.parse({}).traces);
  });

  it("refuses a bad selection naming the field, and creates nothing", async () => {
    const before = await database.db.experiment.count();
    const refused = async (body: unknown) => {
      const response = await post(body);
      return { status: response.status, error: ((await response.json()) as { error: { field?: string; message: string } }).error };
    };
    expect(await refused({ ...grid, traceSelection: { tasks: ["banking/user_task_1"] } })).toMatchObject({
      status: 400,
      error: { field: "traceSelection.tasks", message: expect.stringContaining("makes no state-changing call") },
    });
    expect(await refused({ ...grid, traceSelection: { tasks: ["banking/user_task_99"] } })).toMatchObject({
      status: 400,
      error: { message: expect.stringContaining("banking/user_task_99") },
    });
    expect(await refused({ ...grid, traceSelection: { suite: "shopping" } })).toMatchObject({
      status: 400,
      error: { field: expect.stringContaining("traceSelection") },
    });
    expect(await refused({ ...grid, traceSelection: { suite: "banking" }, traces: replayConfigSchema.parse({}).traces })).toMatchObject({
      status: 400,
      error: { message: expect.stringContaining("not both") },
    });
    expect(await database.db.experiment.count()).toBe(before);
  });
});
