import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { queuedUnitJobCount } from "@/lib/experiments/experiment-jobs";
import { DEFAULT_EXPERIMENT_RULE, declarationOf } from "@/lib/statistics/exclusion-rule";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";

// POST /api/v1/experiments with a kind, and GET …/{id}/canary, through apiRoute: a canary experiment
// is stored with its config and one queued trial job per (condition, trial); bad bodies are refused
// naming the field, nothing created; no kind is still the paper's replay.
let database: TestDatabase;
let key: string;
let POST: typeof import("./route").POST;
let GET_CANARY: typeof import("./[id]/canary/route").GET;
let GET_SUMMARY: typeof import("./[id]/summary/route").GET;
let GET_TRACES: typeof import("./[id]/traces/route").GET;
let PUT_RULE: typeof import("./[id]/exclusion-rule/route").PUT;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" };
  Object.assign(process.env, env);
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const editor = await createAccount(auth, { email: "editor@canary.test", password: "a long enough password", role: "editor" });
  ({ key } = await createApiKey(auth, editor.id, "canary"));
  ({ POST } = await import("./route"));
  ({ GET: GET_CANARY } = await import("./[id]/canary/route"));
  ({ GET: GET_SUMMARY } = await import("./[id]/summary/route"));
  ({ GET: GET_TRACES } = await import("./[id]/traces/route"));
  ({ PUT: PUT_RULE } = await import("./[id]/exclusion-rule/route"));
});
afterAll(async () => {
  await database?.drop();
});

const headers = () => ({ authorization: `Bearer ${key}`, "content-type": "application/json", origin: "http://localhost:3999" });
const post = (body: unknown) =>
  POST(new Request("http://localhost:3999/api/v1/experiments", { method: "POST", headers: headers(), body: JSON.stringify(body) }), {
    params: Promise.resolve({}),
  });
const getCanary = (id: string) =>
  GET_CANARY(new Request(`http://localhost:3999/api/v1/experiments/${id}/canary`, { headers: headers() }), {
    params: Promise.resolve({ id }),
  });

describe("POST /api/v1/experiments with kind canary", () => {
  it("stores the canary config and enqueues one job per condition and trial; its results answer per surface as they come", async () => {
    const response = await post({ kind: "canary", name: "canary check", trials: 2, conditions: ["shared", "verified_reset"] });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const stored = await database.db.experiment.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      kind: "canary",
      name: "canary check",
      state: "queued",
      config: { trials: 2, conditions: ["shared", "verified_reset"] },
    });
    expect(await queuedUnitJobCount(database.db, id)).toBe(4);

    const results = await getCanary(id);
    expect(results.status).toBe(200);
    expect(await results.json()).toEqual({
      experimentId: id,
      conditions: ["shared", "verified_reset"],
      trials: 2,
      surfaces: [],
      held: { n: 0, N: 0 },
    });
    // The replay's aggregates are not a canary experiment's: 404, never a 500.
    const summary = await GET_SUMMARY(new Request(`http://localhost:3999/api/v1/experiments/${id}/summary`, { headers: headers() }), {
      params: Promise.resolve({ id }),
    });
    expect(summary.status).toBe(404);
    const traces = await GET_TRACES(new Request(`http://localhost:3999/api/v1/experiments/${id}/traces`, { headers: headers() }), {
      params: Promise.resolve({ id }),
    });
    expect(traces.status).toBe(404);
    // Nor can its exclusion rule change: there are no runs for it to apply to.
    const rule = { baseVersion: 1, reason: "exclude environment failures", rule: declarationOf(DEFAULT_EXPERIMENT_RULE) };
    const put = await PUT_RULE(
      new Request(`http://localhost:3999/api/v1/experiments/${id}/exclusion-rule`, {
        method: "PUT",
        headers: headers(),
        body: JSON.stringify(rule),
      }),
      { params: Promise.resolve({ id }) },
    );
    expect(put.status).toBe(409);
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe("canary_experiment");
    expect(await database.db.exclusionRuleVersion.count({ where: { experimentId: id } })).toBe(1);
  });

  it("without a kind creates the paper's replay, whose canary results are a 404", async () => {
    const response = await post({ delaysMs: [0], schedules: 1, repetitions: 1 });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    expect((await database.db.experiment.findUniqueOrThrow({ where: { id } })).kind).toBe("replay");
    expect((await getCanary(id)).status).toBe(404);
  });

  it("refuses a bad body naming the field, and creates nothing", async () => {
    const before = await database.db.experiment.count();
    const refused = async (body: unknown) => {
      const response = await post(body);
      const { error } = (await response.json()) as { error: { field?: string; message: string } };
      return [response.status, `${error.field ?? ""} ${error.message}`];
    };
    expect(await refused({ kind: "bogus" })).toEqual([400, expect.stringContaining("kind")]);
    expect(await refused({ kind: "canary", trials: 0 })).toEqual([400, expect.stringContaining("trials")]);
    expect(await refused({ kind: "canary", conditions: ["grouped"] })).toEqual([400, expect.stringContaining("conditions")]);
    expect(await refused({ kind: "canary", delaysMs: [0] })).toEqual([400, expect.stringContaining("delaysMs")]);
    expect(await refused({ kind: "replay", trials: 3 })).toEqual([400, expect.stringContaining("trials")]);
    expect(await database.db.experiment.count()).toBe(before);
  });
});
