import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { at } from "@/lib/testing/evaluation-example";
import { wilsonForProportion, wilsonInterval } from "@/lib/statistics/wilson";

// The route as served (a viewer's API key through apiRoute) on evaluations stored and audited by
// the ingestion path, every figure computed by hand below.
//
// "connected": task t1's a1 writes db:shared, a2 and a3 read it later (one analysis unit of 3,
// a2 and a3 inherit "internal"), all final successes; task t2's b1 succeeds, b2 and b3 fail, b4's
// transfer was pending at scoring (unresolved) though its endpoint label is success. 7 runs,
// 5 units; reported 5/7, final 4/6, under rule version 1 (unresolved as failure) 4/7.
//
// "separate": tasks x (2 of 3) and y (3 of 3), every trial final and alone.
let database: TestDatabase;
let connected: string;
let separate: string;
let key: string;
let GET: typeof import("./route").GET;
let COMPARE: typeof import("../../compare/route").GET;

const run = (
  externalId: string,
  taskId: string,
  second: number,
  endpointLabel: "success" | "failure",
  extra: Record<string, unknown> = {},
) => ({
  externalId,
  taskId,
  startedAt: at(second),
  scoredAt: at(second + 1),
  endpointLabel,
  ...extra,
});

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" };
  Object.assign(process.env, env);
  const db = database.db;
  connected = await createEvaluation(db, { name: "connected", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
  await ingestRuns(db, connected, [
    run("a1", "t1", 0, "success", { touches: [{ surface: "db:shared", op: "write", at: at(0) }] }),
    run("a2", "t1", 10, "success", { touches: [{ surface: "db:shared", op: "read", at: at(10) }] }),
    run("a3", "t1", 20, "success", { touches: [{ surface: "db:shared", op: "read", at: at(20) }] }),
    run("b1", "t2", 30, "success"),
    run("b2", "t2", 32, "failure"),
    run("b3", "t2", 34, "failure"),
    run("b4", "t2", 36, "success", {
      effects: [{ effectId: "e4", tool: "bank.transfer", handle: "tx-4", requestedAt: at(36), statusAtScoring: "pending" }],
    }),
  ]);
  separate = await createEvaluation(db, { name: "separate" }, null);
  await ingestRuns(db, separate, [
    run("x1", "x", 0, "success"),
    run("x2", "x", 2, "success"),
    run("x3", "x", 4, "failure"),
    run("y1", "y", 6, "success"),
    run("y2", "y", 8, "success"),
    run("y3", "y", 10, "success"),
  ]);
  const auth = createAuth(db, readServerEnv(env), database.url);
  const viewer = await createAccount(auth, {
    email: "viewer@evaluation-statistics.test",
    password: "a long enough password",
    role: "viewer",
  });
  ({ key } = await createApiKey(auth, viewer.id, "statistics"));
  ({ GET } = await import("./route"));
  ({ GET: COMPARE } = await import("../../compare/route"));
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

const get = (id: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
  GET(new Request(`http://localhost:3999/api/v1/evaluations/${id}/statistics`, { headers }), { params: Promise.resolve({ id }) });

describe("GET /api/v1/evaluations/{id}/statistics", () => {
  it("answers the contract with the figures computed by hand", async () => {
    const response = await get(connected);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body)).toEqual([
      "evaluationId",
      "effectPolicyVersion",
      "rates",
      "units",
      "passK",
      "exclusionRule",
      "sensitivity",
      "legalActions",
      "thresholdChecks",
      "attack",
    ]);
    // No run here is under attack (none carries a security label).
    expect(body.attack).toBeNull();
    const rate = (name: string) => body.rates.find((r: { name: string }) => r.name === name);
    const interval = (n: number, N: number) => wilsonInterval(n, N)!.map((v) => expect.closeTo(v, 12));
    expect(rate("success rate (rule version 1)")).toMatchObject({ n: 4, N: 7, wilson95: interval(4, 7) });
    expect(rate("reported success rate")).toMatchObject({ n: 5, N: 7, wilson95: interval(5, 7) });
    expect(rate("final-only success rate")).toMatchObject({ n: 4, N: 6, wilson95: interval(4, 6) });
    expect(rate("unresolved rate")).toMatchObject({ n: 1, N: 7 });
    expect(rate("endpoint ≠ terminal")).toMatchObject({ n: 0, N: 0, wilson95: null });
    expect(rate("exposure rate")).toMatchObject({ n: 2, N: 7 });
    // Under the rule, units (y, m): {a1,a2,a3} (3, 3), b1 (1, 1), b2, b3, b4 (0, 1). N = 7, n = 4,
    // Σy² = 10, Σy·m = 10, Σm² = 13: deff = (49·10 − 2·4·7·10 + 16·13)/(7·4·3) = 138/84 = 23/14,
    // effective N = 7·14/23 = 98/23 = 4.26087.
    expect(body.units).toMatchObject({ runRows: 7, analysisUnits: 5, rows: { n: 4, N: 7 } });
    expect(body.units.designEffect).toBeCloseTo(23 / 14, 12);
    expect(body.units.effectiveN).toBeCloseTo(98 / 23, 12);
    expect(body.units.unitBasedWilson95).toEqual(wilsonForProportion(4 / 7, 98 / 23)!.map((v) => expect.closeTo(v, 12)));
    // t1's three trials are one unit and two of them inherited a1's write.
    expect(body.passK).toEqual({ available: false, reason: expect.stringContaining('trials of task t1 carry inherited state "internal"') });
    expect(body.exclusionRule).toMatchObject({ version: 1, hash: "3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509" });
    expect(body.sensitivity.map((r: { rule: string; n: number; N: number; rate: number }) => [r.rule, r.n, r.N, r.rate])).toEqual([
      ["declared (version 1)", 4, 7, 4 / 7],
      ["unresolved as success", 5, 7, 5 / 7],
      ["unresolved excluded", 4, 6, 4 / 6],
    ]);
  });

  it("computes pass^k where every trial is its own unit", async () => {
    const body = await (await get(separate)).json();
    // x: 2 of 3, y: 3 of 3. pass^1 = (2/3 + 1)/2 = 5/6; pass^2 = (C(2,2)/C(3,2) + 1)/2 = 2/3; pass^3 = (0 + 1)/2 = 1/2.
    // pass@1 = 5/6; pass@2 = 1 − (C(1,2)/C(3,2) + 0)/2 = 1; pass@3 = 1.
    expect(body.passK).toEqual({
      available: true,
      values: [
        { k: 1, value: expect.closeTo(5 / 6, 12), passAtK: expect.closeTo(5 / 6, 12) },
        { k: 2, value: expect.closeTo(2 / 3, 12), passAtK: 1 },
        { k: 3, value: 0.5, passAtK: 1 },
      ],
    });
    // Every unit one row: 5/6 over 6 units, deff = 1.
    expect(body.units).toMatchObject({ runRows: 6, analysisUnits: 6, designEffect: 1, rows: { n: 5, N: 6 } });
  });

  it("refuses without a credential, and names an unknown or malformed id", async () => {
    expect((await get(connected, {})).status).toBe(401);
    expect((await get("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await get("not-a-uuid")).status).toBe(400);
  });
});

describe("GET /api/v1/evaluations/compare", () => {
  const compare = (ids: string) =>
    COMPARE(new Request(`http://localhost:3999/api/v1/evaluations/compare?ids=${ids}`, { headers: { authorization: `Bearer ${key}` } }), {
      params: Promise.resolve({}),
    });

  it("compares the two under one rule", async () => {
    const response = await compare(`${connected},${separate}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    // connected: reported 5/7, final-only 4/6, range [4/7, 5/7] = [0.571, 0.714]; separate: 5/6 with nothing unresolved.
    // The ranges are apart (5/6 > 5/7), but Wilson(5,6) = [0.4365, 0.9699] overlaps Wilson(5,7) = [0.3589, 0.9178].
    expect(
      body.evaluations.map((e: { name: string; reported: { n: number; N: number }; finalOnly: { n: number; N: number } }) => [
        e.name,
        e.reported.n,
        e.reported.N,
        e.finalOnly.n,
        e.finalOnly.N,
      ]),
    ).toEqual([
      ["connected", 5, 7, 4, 6],
      ["separate", 5, 6, 5, 6],
    ]);
    expect(body.evaluations[0].justifiedRange.lower).toMatchObject({ n: 4, N: 7 });
    expect(body.evaluations[0].justifiedRange.upper).toMatchObject({ n: 5, N: 7 });
    expect(body.ranking).toEqual({ endpoint: [separate, connected], finalOnly: [separate, connected], changed: false });
    expect(body.pairs).toEqual([
      expect.objectContaining({ a: connected, b: separate, verdict: "not separable at this sample size", leader: separate }),
    ]);
    expect(body).toMatchObject({
      rule: { version: 1, hash: "3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509" },
      rulesDiffer: false,
    });
  });

  it("names the field of a bad list and an unknown evaluation", async () => {
    const refusal = async (ids: string) => {
      const response = await compare(ids);
      return [response.status, (await response.json()).error];
    };
    expect(await refusal(connected)).toEqual([
      400,
      expect.objectContaining({ field: "ids", message: expect.stringContaining("at least two") }),
    ]);
    expect(await refusal(`${connected},${connected}`)).toEqual([
      400,
      expect.objectContaining({ field: "ids", message: expect.stringContaining("repeat") }),
    ]);
    expect(await refusal(`${connected},nope`)).toEqual([400, expect.objectContaining({ message: expect.stringContaining("UUIDs") })]);
    expect(await refusal(`${connected},00000000-0000-4000-8000-000000000000`)).toEqual([
      404,
      expect.objectContaining({ message: expect.stringContaining("00000000-0000-4000-8000-000000000000") }),
    ]);
  });
});
