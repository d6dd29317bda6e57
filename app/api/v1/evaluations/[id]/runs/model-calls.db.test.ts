import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import type { TestDatabase } from "@/lib/testing/database";
import { at } from "@/lib/testing/evaluation-example";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";

// A run's model calls through the ingest API over real HTTP on a real PostgreSQL: sent in the run's
// `modelCalls`, answered by the run API with their sums, summed on the runs list, the summary's
// totals (with their denominators) and the exports; a bad field refuses its run alone, naming it.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };
let evaluation: string;

const run = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId,
  taskId: "banking/user_task_0",
  startedAt: at(0),
  scoredAt: at(60_000),
  endpointLabel: "success",
  ...extra,
});
const CONVERSATION = [
  { role: "user", content: "pay the bill" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", tool: "bank.transfer", arguments: { amount: 5 } }] },
  { role: "tool", content: "done", toolCallId: "c1" },
  { role: "assistant", content: "Paid." },
];
const CALLS = [
  {
    model: "openai/gpt-4o",
    startedAt: at(1_000),
    durationMs: 1_250,
    inputTokens: 1_124,
    outputTokens: 23,
    error: "rate limited",
    messagePosition: 1,
  },
  { model: "openai/gpt-4o", startedAt: at(2_500), durationMs: 900.5, inputTokens: 1_124, outputTokens: 31, messagePosition: 1 },
  { model: "openai/gpt-4o", startedAt: at(5_000), durationMs: 700, inputTokens: 1_300, messagePosition: 3 },
  { model: "openai/gpt-4o-mini", startedAt: at(6_000) },
];

const call = async (method: "GET" | "POST", path: string, body?: unknown) => {
  const response = await fetch(`${api.origin}/api/v1/evaluations/${evaluation}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
};
const json = async (method: "GET" | "POST", path: string, body?: unknown) => {
  const { status, text } = await call(method, path, body);
  return { status, body: JSON.parse(text) };
};

/** Rows in the order of their first cell, the run's externalId: "no-calls" < "untokened" < "with-calls". */
const byExternalId = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "model-calls"));
  evaluation = await createEvaluation(database.db, { name: "model calls" }, null);
  const [runs, oneRun, summary, exported] = await Promise.all([
    import("./route"),
    import("./[externalId]/route"),
    import("../summary/route"),
    import("../export/route"),
  ]);
  api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/runs$/, methods: { GET: runs.GET, POST: runs.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/runs\/(?<externalId>[^/]+)$/, methods: { GET: oneRun.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/export$/, methods: { GET: exported.GET } },
  ]);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

describe("model calls through the ingest API", () => {
  it("stores each call and the run's sums; the run API answers both, the list and the summary the sums with their denominators", async () => {
    const ingest = await json("POST", "/runs", {
      runs: [
        run("with-calls", { messages: CONVERSATION, modelCalls: CALLS }),
        run("untokened", { modelCalls: [{ model: "mockllm/model", startedAt: at(100), durationMs: 3 }] }),
        run("no-calls"),
      ],
    });
    expect(ingest).toEqual({
      status: 200,
      body: {
        results: [
          { externalId: "with-calls", status: "created" },
          { externalId: "untokened", status: "created" },
          { externalId: "no-calls", status: "created" },
        ],
      },
    });

    const one = await json("GET", "/runs/with-calls");
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ inputTokens: 3_548, outputTokens: 54, modelCallCount: 4 });
    expect(one.body.modelCalls).toEqual(
      CALLS.map((c, position) => ({
        position,
        model: c.model,
        startedAt: c.startedAt,
        durationMs: c.durationMs ?? null,
        inputTokens: c.inputTokens ?? null,
        outputTokens: c.outputTokens ?? null,
        error: c.error ?? null,
        messagePosition: c.messagePosition ?? null,
      })),
    );
    expect((await json("GET", "/runs/no-calls")).body).toMatchObject({
      modelCalls: [],
      inputTokens: null,
      outputTokens: null,
      modelCallCount: null,
    });

    // In stored order: the order the runs were sent.
    const list = await json("GET", "/runs");
    expect(list.body.runs.map((r: Record<string, unknown>) => [r.externalId, r.inputTokens, r.outputTokens, r.modelCallCount])).toEqual([
      ["with-calls", 3_548, 54, 4],
      ["untokened", null, null, 1],
      ["no-calls", null, null, null],
    ]);

    const summary = await json("GET", "/summary");
    expect(summary.body.tokens).toEqual({ input: 3_548, output: 54, runsWithTokens: 1, modelCalls: 5, runsWithModelCalls: 2, runs: 3 });
  });

  it("exports the sums, an empty CSV cell and a JSON null where unknown", async () => {
    const csv = await call("GET", "/export?format=csv");
    const lines = csv.text
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    const header = lines[0]!.split(",");
    const cells = (externalId: string) => {
      const row = lines.find((l) => l.startsWith(`${externalId},`))!.split(",");
      return ["inputTokens", "outputTokens", "modelCalls"].map((column) => row[header.indexOf(column)]);
    };
    expect([cells("with-calls"), cells("untokened"), cells("no-calls")]).toEqual([
      ["3548", "54", "4"],
      ["", "", "1"],
      ["", "", ""],
    ]);
    const exported = JSON.parse((await call("GET", "/export?format=json")).text) as Record<string, unknown>[];
    expect(exported.map((r) => [r.externalId, r.inputTokens, r.outputTokens, r.modelCalls]).sort(byExternalId)).toEqual([
      ["no-calls", null, null, null],
      ["untokened", null, null, 1],
      ["with-calls", 3_548, 54, 4],
    ]);
  });

  it("a run sent again with other calls replaces them and its sums; the summary follows", async () => {
    const again = await json("POST", "/runs", {
      runs: [
        run("with-calls", {
          messages: CONVERSATION,
          modelCalls: [{ model: "openai/gpt-4o", inputTokens: 10, outputTokens: 2, messagePosition: 3 }],
        }),
      ],
    });
    expect(again.body.results).toEqual([{ externalId: "with-calls", status: "updated" }]);
    const one = await json("GET", "/runs/with-calls");
    expect(one.body).toMatchObject({ inputTokens: 10, outputTokens: 2, modelCallCount: 1 });
    expect(one.body.modelCalls).toHaveLength(1);
    expect((await json("GET", "/summary")).body.tokens).toEqual({
      input: 10,
      output: 2,
      runsWithTokens: 1,
      modelCalls: 2,
      runsWithModelCalls: 2,
      runs: 3,
    });
  });

  it("refuses a bad model call naming its field, that run alone and nothing of it stored", async () => {
    const refused = await json("POST", "/runs", {
      runs: [
        run("bad-tokens", { modelCalls: [{ model: "gpt-4o", inputTokens: -5 }] }),
        run("bad-message", { messages: CONVERSATION, modelCalls: [{ messagePosition: 2 }] }),
        run("bad-key", { modelCalls: [{ model: "gpt-4o", prompt_tokens: 3 }] }),
        run("fine", { modelCalls: [{ model: "gpt-4o", outputTokens: 1 }] }),
      ],
    });
    expect(refused.status).toBe(200);
    const [tokens, message, unknownKey, fine] = refused.body.results;
    expect(tokens).toMatchObject({ externalId: "bad-tokens", status: "error", error: { field: "runs.0.modelCalls.0.inputTokens" } });
    expect(tokens.error.message).toContain("inputTokens must be at least 0");
    expect(message).toMatchObject({ externalId: "bad-message", status: "error", error: { field: "runs.1.modelCalls.0.messagePosition" } });
    expect(message.error.message).toContain("message 2 is a tool message");
    expect(unknownKey).toMatchObject({ externalId: "bad-key", status: "error" });
    expect(unknownKey.error.field).toMatch(/^runs\.2\.modelCalls\.0/);
    expect(fine).toEqual({ externalId: "fine", status: "created" });
    for (const externalId of ["bad-tokens", "bad-message", "bad-key"]) expect((await call("GET", `/runs/${externalId}`)).status).toBe(404);
    const stored = await database.db.evaluationRunModelCall.count({ where: { run: { evaluationId: evaluation } } });
    expect(stored).toBe(3); // with-calls' one, untokened's one, fine's one
  });
});
