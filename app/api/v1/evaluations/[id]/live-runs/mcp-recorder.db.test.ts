import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServiceProcess } from "@/lib/delayed-write/spawn";
import { spawnDelayedWriteService } from "@/lib/delayed-write/spawn";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/client";
import { getEvaluationRun } from "@/lib/evaluations/evaluation-runs";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";

// Issue 23 §4, the proof on a real agent loop: an agent built on the MCP SDK's client talks to the
// tests' own bank (lib/testing/mcp-bank-server.ts, transfers applied by the delayed-write service
// after a delay) through `workers/mcp-record.ts` as separate processes over stdio; Boundary Lab's
// route handlers serve the recorder over real HTTP on a real PostgreSQL. The harness scores each
// run at the endpoint, as evaluations do, while the transfer is still working.
let database: TestDatabase;
let service: ServiceProcess;
let api: { origin: string; close(): Promise<void> };
let key: string;
let lab: EvaluationClient;
const TRANSFER_DELAY_MS = 1_500;
const spool = mkdtempSync(path.join(tmpdir(), "bl-recorder-spool-"));

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "recorder"));
  const [open, events, score, read, suggestions] = await Promise.all([
    import("./route"),
    import("./[externalId]/events/route"),
    import("./[externalId]/score/route"),
    import("./[externalId]/route"),
    import("../tool-suggestions/route"),
  ]);
  const evaluations = await import("../../route");
  const summary = await import("../summary/route");
  api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/tool-suggestions$/, methods: { GET: suggestions.GET, POST: suggestions.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs$/, methods: { POST: open.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)$/, methods: { GET: read.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/events$/, methods: { POST: events.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/score$/, methods: { POST: score.POST } },
  ]);
  lab = evaluationClient({ baseUrl: api.origin, apiKey: key });
  service = await spawnDelayedWriteService();
}, 120_000);
afterAll(async () => {
  await api?.close();
  await service?.stop();
  await database?.drop();
});

/** An agent's MCP client whose server is the recorder in front of the bank. */
async function agentThroughRecorder(evaluationId: string, run: string, namespace: string): Promise<Client> {
  const node = (script: string) => ["--import", "tsx", path.resolve(script)];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...node("workers/mcp-record.ts"),
      ...["--evaluation", evaluationId, "--run", run, "--task", "transfer", "--api", api.origin, "--spool", spool, "--"],
      process.execPath,
      ...node("lib/testing/mcp-bank-server.ts"),
    ],
    env: {
      ...getDefaultEnvironment(),
      BOUNDARY_LAB_API_KEY: key,
      DELAYED_WRITE_URL: service.url,
      BANK_NAMESPACE: namespace,
      TRANSFER_DELAY_MS: String(TRANSFER_DELAY_MS),
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "test agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Waits until `check` holds (the recorder sends in the background), or fails naming what was awaited. */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const liveEffects = async (evaluationId: string, run: string) => {
  const response = await fetch(`${api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (response.status !== 200) return [];
  return ((await response.json()) as { record: { effects: { tool: string; statusAtScoring: string; handle?: string }[] } }).record.effects;
};

/** One agent run: reads alice's balance (`balance`: what the runs before it left), sends 5 with a task, and stops without waiting for it. */
async function transferRun(evaluationId: string, run: string, namespace: string, balance: number, beforeRead?: () => Promise<void>) {
  const agent = await agentThroughRecorder(evaluationId, run, namespace);
  const tools = await agent.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual(["get_balance", "ping", "send_money"]);
  await beforeRead?.();
  // The traffic is the bank's own: the recorder changes nothing in it.
  expect(await agent.callTool({ name: "get_balance", arguments: { account: "alice" } })).toEqual({
    content: [
      { type: "text", text: String(balance) },
      { type: "resource_link", uri: "bank://accounts/alice", name: "alice" },
    ],
  });
  const stream = agent.experimental.tasks.callToolStream(
    { name: "send_money", arguments: { from: "alice", to: "bob", amount: 5 } },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  const first = await stream.next();
  expect(first.value).toMatchObject({ type: "taskCreated", task: { status: "working" } });
  await stream.return(undefined);
  // The harness scores at the endpoint, once the recorder's events of the run have reached Boundary Lab
  // (the task's acknowledgement included: scored before it arrives, the effect has no handle yet and is unverifiable).
  await until(
    "the transfer recorded acknowledged with its task",
    () => liveEffects(evaluationId, run),
    (e) => e.some((x) => x.tool === "send_money" && x.statusAtScoring === "pending" && x.handle !== undefined),
  );
  const scored = await lab.scoreLiveRun(evaluationId, run, { endpointLabel: "success" });
  await agent.close(); // the agent has gone; the recorder follows its task on its own
  return scored;
}

describe("the MCP recorder on a real agent loop", () => {
  it("records a transfer still working at scoring as pending_at_scoring, later resolved_after_scoring; two runs on one account are one unit", async () => {
    const { id } = await lab.createEvaluation({
      name: "recorded bank",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    const first = await transferRun(id, "A", "bank-one", 100);
    expect(first).toMatchObject({ finality: "unresolved", reason: "pending_at_scoring", tool: "send_money" });
    const resolved = await until(
      "run A resolved after scoring",
      () => getEvaluationRun(database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect(resolved?.effects.find((e) => e.tool === "send_money")?.handle).toMatch(/.+/);
    // Run B reads alice after A's transfer wrote her account (95 left), with no reset between: one unit with A.
    await transferRun(id, "B", "bank-one", 95);
    await until(
      "run B resolved",
      () => getEvaluationRun(database.db, id, "B"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect((await lab.summary(id)).units).toMatchObject({ runRows: 2, analysisUnits: 1 });
    // What the recorder suggested from the tools' annotations and the task answer.
    const suggested = await lab.toolSuggestions(id);
    expect(suggested.map((s) => [s.tool, s.suggestedClass, s.source])).toEqual([
      ["get_balance", "read_only", "mcp:bank"],
      ["ping", "read_only", "mcp:bank"],
      ["send_money", "async_handle", "mcp:bank"],
    ]);
  }, 120_000);

  it("makes the two runs two units when the harness records verified resets of both accounts before B touches them", async () => {
    const { id } = await lab.createEvaluation({
      name: "recorded bank, reset",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    await transferRun(id, "A", "bank-two", 100);
    await until(
      "run A resolved",
      () => getEvaluationRun(database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    // B's transfer reads and writes both accounts A wrote: the harness resets both, verified, before B starts.
    // (The bank's state is what A left: the resets' record is what is under test here.)
    await transferRun(id, "B", "bank-two", 95, async () => {
      await lab.openLiveRun(id, { externalId: "B", taskId: "transfer" });
      const at = new Date().toISOString();
      await lab.sendLiveEvents(
        id,
        "B",
        ["alice", "bob"].map((account) => ({
          eventId: `harness-reset-${account}`,
          type: "reset",
          at,
          surface: `bank://accounts/${account}`,
          verified: true,
          evidence: "balance read back",
        })),
      );
    });
    await until(
      "run B resolved",
      () => getEvaluationRun(database.db, id, "B"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect((await lab.summary(id)).units).toMatchObject({ runRows: 2, analysisUnits: 2 });
  }, 120_000);
});
