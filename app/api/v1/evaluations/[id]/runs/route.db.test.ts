import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import type { EvaluationRunListItem, RunSort } from "@/lib/evaluations/read/read-boundary";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { RUNS_LIST_POLICY, runsListDuration, runsListExample } from "@/lib/testing/runs-list-example";

// GET /api/v1/evaluations/{id}/runs as served: stored order, each sort paged by its keyset, the filters, text search, bad params.
let database: TestDatabase;
let evaluation: string;
let key: string;
let GET: typeof import("./route").GET;

const ORIGIN = "http://localhost:3998";
type Item = Omit<EvaluationRunListItem, "startedAt" | "scoredAt"> & { startedAt: string; scoredAt: string | null };

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: ORIGIN };
  Object.assign(process.env, env);
  // Another evaluation first: its runs take the first ids, so that this one's units are not numbered from 1 by accident.
  const other = await createEvaluation(database.db, { name: "before" }, null);
  await ingestRuns(database.db, other, runsListExample().slice(0, 3), { traces: "caller" });
  evaluation = await createEvaluation(database.db, { name: "runs list", effectPolicy: RUNS_LIST_POLICY }, null);
  const results = await ingestRuns(database.db, evaluation, runsListExample(), { traces: "caller" });
  expect(results.map((r) => r.status)).toEqual(Array(12).fill("created"));
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const viewer = await createAccount(auth, { email: "viewer@runs-list.test", password: "a long enough password", role: "viewer" });
  ({ key } = await createApiKey(auth, viewer.id, "runs list"));
  ({ GET } = await import("./route"));
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

const get = async (query: string) => {
  const response = await GET(
    new Request(`${ORIGIN}/api/v1/evaluations/${evaluation}/runs?${query}`, { headers: { authorization: `Bearer ${key}` } }),
    { params: Promise.resolve({ id: evaluation }) },
  );
  return {
    status: response.status,
    body: (await response.json()) as { runs: Item[]; nextCursor: string | null; error?: { message: string } },
  };
};
const ids = (runs: Item[]) => runs.map((r) => r.externalId);

/** Every run under the query, a page of `limit` at a time through nextCursor. */
async function allPages(query: string, limit: number): Promise<Item[]> {
  const seen: Item[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const { status, body } = await get(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    seen.push(...body.runs);
    cursor = body.nextCursor;
    if (!cursor) return seen;
  }
  throw new Error("more than 20 pages");
}

const STORED = Array.from({ length: 12 }, (_, k) => `r${k + 1}`);
const number = (r: Item) => Number(r.externalId.slice(1));

/** The value each sort orders by, read from the fixture's own numbers where it can be (not from the answer). */
const VALUE_OF: Record<Exclude<RunSort, "stored">, (r: Item) => string | number | null> = {
  start: (r) => Date.parse(r.startedAt),
  duration: (r) => (number(r) === 12 ? null : runsListDuration(number(r)) * 1000),
  score: (r) => ([5, 12].includes(number(r)) ? null : number(r) / 10),
  label: (r) => (number(r) === 12 ? null : number(r) % 2 === 0 ? "success" : "failure"),
  finality: (r) => r.finality,
  unit: (r) => Number(r.analysisUnit),
  toolCalls: (r) => number(r) % 4,
  openEffects: (r) => ({ 3: 1, 7: 1, 9: 2 })[number(r)] ?? 0,
};

/** Ascending: values in order, runs without one last; ties by stored order. Descending: exactly reversed. */
function expectedOrder(runs: Item[], value: (r: Item) => string | number | null, desc: boolean): string[] {
  const ascending = [...runs].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x === null || y === null) return x === y ? number(a) - number(b) : x === null ? 1 : -1;
    return x < y ? -1 : x > y ? 1 : number(a) - number(b);
  });
  return ids(desc ? ascending.reverse() : ascending);
}

describe("GET /api/v1/evaluations/{id}/runs", () => {
  it("lists the runs in the order they were sent, with their columns and units labelled within the evaluation", async () => {
    const { body } = await get("limit=50");
    expect(ids(body.runs)).toEqual(STORED);
    const byId = new Map(body.runs.map((r) => [r.externalId, r]));
    expect(byId.get("r3")).toMatchObject({
      durationMs: runsListDuration(3) * 1000,
      score: 0.3,
      toolCallCount: 3,
      openEffects: 1,
      finality: "unresolved",
    });
    expect(byId.get("r12")).toMatchObject({ durationMs: null, score: null, endpointLabel: null, finality: "unscored", toolCallCount: 0 });
    expect(byId.get("r9")!.openEffects).toBe(2);
    // r6 wrote what r2 read later: one unit, the second by its first run (r2); every other run its own.
    expect(body.runs.map((r) => r.unitLabel)).toEqual(["U1", "U2", "U3", "U4", "U5", "U2", "U6", "U7", "U8", "U9", "U10", "U11"]);
    expect(byId.get("r6")!.analysisUnit).toBe(byId.get("r2")!.id);
    expect(ids((await get(`unit=${byId.get("r2")!.id}`)).body.runs)).toEqual(["r2", "r6"]);
  });

  it.each(["stored", "start", "duration", "score", "label", "finality", "unit", "toolCalls", "openEffects"] as const)(
    "pages through every run sorted by %s, both ways, by its keyset",
    async (sort) => {
      const everything = (await get("limit=50")).body.runs;
      for (const order of ["asc", "desc"] as const) {
        const paged = await allPages(`sort=${sort}&order=${order}`, 5);
        const expected =
          sort === "stored"
            ? order === "asc"
              ? STORED
              : [...STORED].reverse()
            : expectedOrder(everything, VALUE_OF[sort], order === "desc");
        expect(ids(paged), `${sort} ${order}`).toEqual(expected);
      }
    },
  );

  it("filters by each column", async () => {
    expect(ids((await get("label=failure")).body.runs)).toEqual(["r1", "r3", "r5", "r7", "r9", "r11"]);
    expect(ids((await get("label=none")).body.runs)).toEqual(["r12"]);
    expect(ids((await get("finality=unresolved")).body.runs)).toEqual(["r3", "r7", "r9"]);
    expect(ids((await get("openEffectsMin=2")).body.runs)).toEqual(["r9"]);
    expect(ids((await get("openEffectsMax=0&toolCallsMin=3")).body.runs)).toEqual(["r11"]);
    expect(ids((await get("durationMin=10000&durationMax=12000")).body.runs).sort()).toEqual(
      STORED.filter((r) => r !== "r12" && runsListDuration(Number(r.slice(1))) >= 10).sort(),
    );
    expect(ids((await get("scoreMin=0.25&scoreMax=0.6")).body.runs)).toEqual(["r3", "r4", "r6"]);
    // Starts go backwards, 20 s apart: r12 first at 10:00:20 … r1 last at 10:04:00.
    expect(ids((await get("startedFrom=2026-12-01T10:03:00Z&startedTo=2026-12-01T10:03:40Z")).body.runs)).toEqual(["r2", "r3", "r4"]);
    expect(ids((await get("startedFrom=2026-12-02")).body.runs)).toEqual([]);
    // Filters and a sort together, paged.
    expect(ids(await allPages("label=success&sort=duration&order=desc", 2))).toEqual(
      ["r2", "r4", "r6", "r8", "r10"].sort((a, b) => runsListDuration(Number(b.slice(1))) - runsListDuration(Number(a.slice(1)))),
    );
  });

  it("finds runs by text in their transcript, tool calls, task or id, whatever the case", async () => {
    expect(ids((await get("q=marguerite")).body.runs)).toEqual(["r4", "r8"]);
    expect(ids((await get("q=ZEPPELIN")).body.runs)).toEqual(["r10"]);
    expect(ids((await get("q=refund-zz9")).body.runs)).toEqual(["r11"]);
    expect(ids((await get("q=r11")).body.runs)).toEqual(["r11"]);
    // LIKE's wildcards are plain characters: "ma%ite" is not a pattern.
    expect(ids((await get(`q=${encodeURIComponent("ma%ite")}`)).body.runs)).toEqual([]);
    expect(ids((await get("q=marguerite&sort=duration&order=desc")).body.runs)).toEqual(
      runsListDuration(4) > runsListDuration(8) ? ["r4", "r8"] : ["r8", "r4"],
    );
    expect(ids((await get("q=nothing+like+this")).body.runs)).toEqual([]);
  });

  it.each([
    ["sort=bogus", "sort must be one of"],
    ["order=up", "order must be one of"],
    ["durationMin=abc", "durationMin must be a whole number"],
    ["scoreMin=high", "scoreMin must be a number"],
    ["scoreMin=0.9&scoreMax=0.1", "scoreMin must not exceed scoreMax"],
    ["label=maybe", "label must be one of"],
    ["startedFrom=yesterday", "startedFrom must be a date"],
    ["q=ab", "q must be at least 3 characters"],
    ["cursor=nonsense", "cursor is not one this list handed out"],
    ["colour=red", "colour"],
  ])("refuses %s with 400 naming the param", async (query, message) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(message);
  });

  it("refuses a cursor of another sort", async () => {
    const { body } = await get("sort=score&limit=2");
    const { status, body: refused } = await get(`sort=duration&limit=2&cursor=${body.nextCursor}`);
    expect(status).toBe(400);
    expect(JSON.stringify(refused)).toContain("cursor belongs to the sort score");
  });
});
