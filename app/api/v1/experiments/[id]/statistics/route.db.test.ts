import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { loadSyntheticExperiment } from "@/lib/testing/synthetic-runs";
import { readServerEnv } from "@/lib/env";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";

// The route itself, through apiRoute (API key, path parsing, errors), on the paper's grid stored as
// the replay stores it. The figures are checked by hand in lib/experiments/experiment-statistics.db.test.ts;
// here: the contract's fields, a few figures, and the refusals.
let database: TestDatabase;
let experimentId: string;
let key: string;
let GET: typeof import("./route").GET;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  // The web process's database, auth and principals are read from the environment on first use.
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" };
  Object.assign(process.env, env);
  ({ experimentId } = await loadSyntheticExperiment(
    database.db,
    { delaysMs: [0, 25, 100, 250], schedules: 5, repetitions: 10 },
    { environmentFailureEvery: 0, protocolStopEvery: 0, openEffects: false },
  ));
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const viewer = await createAccount(auth, { email: "viewer@statistics.test", password: "a long enough password", role: "viewer" });
  ({ key } = await createApiKey(auth, viewer.id, "statistics"));
  ({ GET } = await import("./route"));
});
afterAll(async () => {
  await database?.drop();
});

const get = (id: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
  GET(new Request(`http://localhost:3999/api/v1/experiments/${id}/statistics`, { headers }), { params: Promise.resolve({ id }) });

describe("GET /api/v1/experiments/{id}/statistics", () => {
  it("answers the contract's fields for a viewer's API key", async () => {
    const response = await get(experimentId);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body)).toEqual([
      "experimentId",
      "rates",
      "units",
      "passK",
      "conditions",
      "exclusionRule",
      "sensitivity",
      "thresholdChecks",
    ]);
    // 0/150 with [0, z²/(150 + z²)] = [0, 0.024970]
    expect(body.rates).toContainEqual({
      name: "snapshot: success rate at nonzero delays",
      population: "finality trials at nonzero delays, less what rule version 1 excludes (environment failure: 0)",
      n: 0,
      N: 150,
      wilson95: [0, expect.closeTo(0.02497, 5)],
    });
    expect(body.units).toMatchObject({ runRows: 3600, analysisUnits: 3200, countedUnits: 3000, effectiveN: 3000 });
    expect(body.exclusionRule).toMatchObject({ version: 1, hash: "3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509" });
    expect(body.sensitivity[0]).toMatchObject({ rule: "declared (version 1)", n: 3600, N: 3600, rate: 1 });
    const passKOf = (condition: string) => body.conditions.find((c: { condition: string }) => c.condition === condition).passK;
    expect(passKOf("shared")).toMatchObject({ available: false, reason: expect.stringContaining('inherited state "internal"') });
    expect(passKOf("grouped")).toMatchObject({ available: false, reason: expect.stringContaining('inherited state "internal"') });
    expect(passKOf("namespaced")).toMatchObject({ available: true, values: expect.arrayContaining([{ k: 10, value: 1, passAtK: 1 }]) });
  });

  it("refuses without a credential, and names an unknown or malformed id", async () => {
    expect((await get(experimentId, {})).status).toBe(401);
    expect((await get("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await get("not-a-uuid")).status).toBe(400);
  });
});
