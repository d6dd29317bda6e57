import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServiceProcess } from "@/lib/delayed-write/spawn";
import { spawnDelayedWriteService } from "@/lib/delayed-write/spawn";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/api-client";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import type { LiveRunRecorder } from "@/lib/evaluations/live/live-run-schemas";
import { spoolFileOf } from "@/lib/recorder/flags";
import type { TestDatabase } from "@/lib/testing/database";
import { serveBankOverHttp } from "@/lib/testing/mcp-bank";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";
import { until } from "@/lib/testing/until";

// Issue 23 §4, the proof on a real agent loop: an agent built on the MCP SDK's client talks to the
// tests' own bank (lib/testing/mcp-bank.ts, transfers applied by the delayed-write service after a
// delay) through `workers/mcp-record.ts` as its own process, over stdio and in Streamable HTTP mode
// (§2: `--listen PORT --upstream URL`, the bank's POSTs answered with SSE streams or JSON bodies);
// Boundary Lab's route handlers serve the recorder over real HTTP on a real PostgreSQL. The harness
// scores each run at the endpoint, as evaluations do, while the transfer is still working.
let harness: RecorderHarness;
const TRANSFER_DELAY_MS = 1_500;
const recorders: ChildProcess[] = [];

beforeAll(async () => {
  harness = await startRecorderHarness(inject("embeddedAdminUrl"));
}, 120_000);
afterAll(async () => {
  for (const recorder of recorders) recorder.kill("SIGKILL");
  await harness?.close();
});

interface RecorderHarness {
  database: TestDatabase;
  api: { origin: string };
  key: string;
  lab: EvaluationClient;
  service: ServiceProcess;
  /** The recorders' spool folder. */
  spool: string;
  close(): Promise<void>;
}

async function startRecorderHarness(adminUrl: string): Promise<RecorderHarness> {
  const { database, key } = await routeTestDatabase(adminUrl, "editor", "recorder");
  const [open, events, score, read, suggestions, recorders] = await Promise.all([
    import("./route"),
    import("./[externalId]/events/route"),
    import("./[externalId]/score/route"),
    import("./[externalId]/route"),
    import("../tool-suggestions/route"),
    import("./[externalId]/recorders/[recorderId]/route"),
  ]);
  const evaluations = await import("../../route");
  const summary = await import("../summary/route");
  const api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/tool-suggestions$/, methods: { GET: suggestions.GET, POST: suggestions.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs$/, methods: { POST: open.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)$/, methods: { GET: read.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/events$/, methods: { POST: events.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/score$/, methods: { POST: score.POST } },
    {
      path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/recorders\/(?<recorderId>[^/]+)$/,
      methods: { PUT: recorders.PUT },
    },
  ]);
  const service = await spawnDelayedWriteService();
  return {
    database,
    api,
    key,
    lab: evaluationClient({ baseUrl: api.origin, apiKey: key }),
    service,
    spool: mkdtempSync(path.join(tmpdir(), "bl-recorder-spool-")),
    async close() {
      await api.close();
      await service.stop();
      await database.drop();
    },
  };
}

/** A live run's effects as the run page reads them (none while it is not open yet). */
async function liveEffects(harness: RecorderHarness, evaluationId: string, run: string) {
  const response = await fetch(`${harness.api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${harness.key}` },
  });
  if (response.status !== 200) return [];
  return (
    (await response.json()) as { record: { effects: { effectId: string; tool: string; statusAtScoring: string; handle?: string }[] } }
  ).record.effects;
}

/** Until the transfer's acknowledgement (with its task as handle) has reached Boundary Lab: scored before, the effect would be unverifiable. */
const transferAcknowledged = (harness: RecorderHarness, evaluationId: string, run: string) =>
  until(
    "the transfer recorded acknowledged with its task",
    () => liveEffects(harness, evaluationId, run),
    (effects) => effects.some((e) => e.tool === "send_money" && e.statusAtScoring === "pending" && e.handle !== undefined),
  );

/** An agent's MCP client whose server is the recorder in front of the bank. */
async function agentThroughRecorder(evaluationId: string, run: string, namespace: string): Promise<Client> {
  const node = (script: string) => ["--import", "tsx", path.resolve(script)];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...node("workers/mcp-record.ts"),
      ...["--evaluation", evaluationId, "--run", run, "--task", "transfer", "--api", harness.api.origin, "--spool", harness.spool, "--"],
      process.execPath,
      ...node("lib/testing/mcp-bank-server.ts"),
    ],
    env: {
      ...getDefaultEnvironment(),
      BOUNDARY_LAB_API_KEY: harness.key,
      DELAYED_WRITE_URL: harness.service.url,
      BANK_NAMESPACE: namespace,
      TRANSFER_DELAY_MS: String(TRANSFER_DELAY_MS),
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "test agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/**
 * One agent run, its MCP client connected through a recorder: reads alice's balance (`balance`: what
 * the runs before it left), sends 5 with a task, is scored at the endpoint, and stops without waiting for it.
 */
async function transferRun(agent: Client, evaluationId: string, run: string, balance: number, beforeRead?: () => Promise<void>) {
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
  await transferAcknowledged(harness, evaluationId, run);
  const scored = await harness.lab.scoreLiveRun(evaluationId, run, { endpointLabel: "success" });
  // The agent has gone; the recorder follows its task on its own (over HTTP, in the session the agent left).
  await agent.close();
  return scored;
}

describe("the MCP recorder over stdio, on a real agent loop", () => {
  it("records a transfer still working at scoring as pending_at_scoring, later resolved_after_scoring; two runs on one account are one unit", async () => {
    const { id } = await harness.lab.createEvaluation({
      name: "recorded bank",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    const first = await transferRun(await agentThroughRecorder(id, "A", "bank-one"), id, "A", 100);
    expect(first).toMatchObject({ finality: "unresolved", reason: "pending_at_scoring", tool: "send_money" });
    const resolved = await until(
      "run A resolved after scoring",
      () => getEvaluationRun(harness.database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect(resolved?.effects.find((e) => e.tool === "send_money")?.handle).toMatch(/.+/);
    // Run B reads alice after A's transfer wrote her account (95 left), with no reset between: one unit with A.
    await transferRun(await agentThroughRecorder(id, "B", "bank-one"), id, "B", 95);
    await until(
      "run B resolved",
      () => getEvaluationRun(harness.database.db, id, "B"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect((await harness.lab.summary(id)).units).toMatchObject({ runRows: 2, analysisUnits: 1 });
    // What the recorder suggested from the tools' annotations and the task answer.
    const suggested = await harness.lab.toolSuggestions(id);
    expect(suggested.map((s) => [s.tool, s.suggestedClass, s.source])).toEqual([
      ["get_balance", "read_only", "mcp:bank"],
      ["ping", "read_only", "mcp:bank"],
      ["send_money", "async_handle", "mcp:bank"],
    ]);
  }, 120_000);

  it("makes the two runs two units when the harness records verified resets of both accounts before B touches them", async () => {
    const { id } = await harness.lab.createEvaluation({
      name: "recorded bank, reset",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    await transferRun(await agentThroughRecorder(id, "A", "bank-two"), id, "A", 100);
    await until(
      "run A resolved",
      () => getEvaluationRun(harness.database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    // B's transfer reads and writes both accounts A wrote: the harness resets both, verified, before B starts.
    // (The bank's state is what A left: the resets' record is what is under test here.)
    await transferRun(await agentThroughRecorder(id, "B", "bank-two"), id, "B", 95, async () => {
      await harness.lab.openLiveRun(id, { externalId: "B", taskId: "transfer" });
      const at = new Date().toISOString();
      await harness.lab.sendLiveEvents(
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
      () => getEvaluationRun(harness.database.db, id, "B"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect((await harness.lab.summary(id)).units).toMatchObject({ runRows: 2, analysisUnits: 2 });
  }, 120_000);
});

describe("the MCP recorder when the agent leaves, scores at once, or comes back", () => {
  it("follows the task after the agent has gone (its pipes closed), and a score right after the last call waits for the recorder: never final", async () => {
    const { id } = await harness.lab.createEvaluation({
      name: "recorded bank, agent leaves",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    const node = (script: string) => ["--import", "tsx", path.resolve(script)];
    const agent = spawn(
      process.execPath,
      [
        ...node("lib/testing/mcp-agent-leaves.ts"),
        `${harness.api.origin}/api/v1/evaluations/${id}/live-runs/gone/score`,
        "--",
        process.execPath,
        ...node("workers/mcp-record.ts"),
        ...["--evaluation", id, "--run", "gone", "--task", "transfer", "--api", harness.api.origin, "--spool", harness.spool, "--"],
        process.execPath,
        ...node("lib/testing/mcp-bank-server.ts"),
      ],
      {
        env: {
          ...process.env,
          BOUNDARY_LAB_API_KEY: harness.key,
          DELAYED_WRITE_URL: harness.service.url,
          BANK_NAMESPACE: "bank-gone",
          TRANSFER_DELAY_MS: String(TRANSFER_DELAY_MS),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let printed = "";
    agent.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    expect(await exited(agent)).toBe(0);
    // Scored the moment the task was created: the score waited for the recorder's events up to it, so it
    // counts the transfer acknowledged with its task (pending), not a run with no call (final) or no handle.
    expect(JSON.parse(printed)).toEqual({
      status: 200,
      answer: {
        finality: "unresolved",
        reason: "pending_at_scoring",
        effectId: expect.stringMatching(/^rec-[0-9a-f]{8}-/),
        tool: "send_money",
      },
    });
    // The agent and its pipes are gone; the recorder follows the task to its end all the same.
    const resolved = await until(
      "run gone resolved after scoring",
      () => getEvaluationRun(harness.database.db, id, "gone"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect(resolved?.effects.map((e) => e.tool)).toEqual(["get_balance", "send_money"]);
    const recorders = await until(
      "the recorder said it stopped",
      () => liveRecorders(harness, id, "gone"),
      (list) => list.length === 1 && list[0]!.stoppedAt !== null,
    );
    expect(recorders[0]).toMatchObject({ recorderId: expect.stringMatching(/^rec-[0-9a-f]{8}$/), kind: "mcp stdio" });
  }, 120_000);

  it("keeps apart the calls of two recorder sessions of one run (each recorder's effect ids its own)", async () => {
    const { id } = await harness.lab.createEvaluation({
      name: "recorded bank, two sessions",
      effectPolicy: { tools: { get_balance: "read_only" } },
    });
    for (let session = 0; session < 2; session++) {
      const agent = await agentThroughRecorder(id, "twice", "bank-twice");
      await agent.callTool({ name: "get_balance", arguments: { account: "alice" } });
      await until(
        `session ${session + 1}'s call recorded`,
        () => liveEffects(harness, id, "twice"),
        (effects) => effects.length === session + 1,
      );
      await agent.close();
    }
    const effects = await liveEffects(harness, id, "twice");
    expect(new Set(effects.map((e) => e.effectId)).size).toBe(2);
    expect(await harness.lab.scoreLiveRun(id, "twice", { endpointLabel: "success" })).toEqual({ finality: "final" });
  }, 120_000);
});

/** The recorders of a live run, with their last heartbeat. */
async function liveRecorders(harness: RecorderHarness, evaluationId: string, run: string) {
  const response = await fetch(`${harness.api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${harness.key}` },
  });
  return response.status === 200 ? ((await response.json()) as { recorders: LiveRunRecorder[] }).recorders : [];
}

/** `npm run mcp:record -- … --listen 0 --upstream URL` as a process; resolves with the URL it prints. */
async function startRecorder(evaluationId: string, run: string, upstream: string): Promise<{ url: string; process: ChildProcess }> {
  const recorder = spawn(
    process.execPath,
    [
      ...["--import", "tsx", path.resolve("workers/mcp-record.ts")],
      ...["--evaluation", evaluationId, "--run", run, "--task", "transfer", "--api", harness.api.origin, "--spool", harness.spool],
      ...["--listen", "0", "--upstream", upstream, "--poll-bound-seconds", "30"],
    ],
    { env: { ...process.env, BOUNDARY_LAB_API_KEY: harness.key }, stdio: ["ignore", "inherit", "pipe"] },
  );
  recorders.push(recorder);
  let said = "";
  const url = await new Promise<string>((resolve, reject) => {
    recorder.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      process.stderr.write(chunk);
      const listening = /listening on (http:\S+)/.exec(said);
      if (listening) resolve(listening[1]!);
    });
    recorder.once("exit", (code) => reject(new Error(`the recorder exited (${code}) before listening: ${said}`)));
  });
  return { url, process: recorder };
}

/** An agent's MCP client connected to the recorder's URL. */
async function agentOverHttp(recorderUrl: string): Promise<Client> {
  const agent = new Client({ name: "test agent", version: "1.0.0" });
  await agent.connect(new StreamableHTTPClientTransport(new URL(recorderUrl)));
  return agent;
}

const exited = (recorder: ChildProcess) => new Promise<number | null>((resolve) => recorder.once("exit", (code) => resolve(code)));

describe("the MCP recorder in Streamable HTTP mode", () => {
  it("records runs through SSE and JSON answers as the stdio recorder does: pending at scoring, resolved after, one unit on one account", async () => {
    const config = { DELAYED_WRITE_URL: harness.service.url, BANK_NAMESPACE: "bank-http", TRANSFER_DELAY_MS };
    const [sseBank, jsonBank] = await Promise.all([serveBankOverHttp(config), serveBankOverHttp(config, { json: true })]);
    try {
      const { id } = await harness.lab.createEvaluation({
        name: "recorded bank over HTTP",
        effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
      });
      for (const [run, bank, balance] of [
        ["A", sseBank, 100],
        ["B", jsonBank, 95],
      ] as const) {
        const recorder = await startRecorder(id, run, bank.url);
        expect(new URL(recorder.url).pathname).toBe("/mcp");
        const scored = await transferRun(await agentOverHttp(recorder.url), id, run, balance);
        expect(scored).toMatchObject({ finality: "unresolved", reason: "pending_at_scoring", tool: "send_money" });
        const resolved = await until(
          `run ${run} resolved after scoring`,
          () => getEvaluationRun(harness.database.db, id, run),
          (record) => record?.unresolvedReason === "resolved_after_scoring",
        );
        expect(resolved?.effects.find((e) => e.tool === "send_money")?.handle).toMatch(/.+/);
        // Stopped, it leaves nothing unsent: every spooled event is marked sent.
        const exit = exited(recorder.process);
        recorder.process.kill("SIGTERM");
        expect(await exit).toBe(0);
        const spoolFile = spoolFileOf({ spool: harness.spool, evaluation: id, run });
        const spooled = readFileSync(spoolFile, "utf8").split("\n").filter(Boolean).length;
        expect(Number(readFileSync(`${spoolFile}.sent`, "utf8"))).toBe(spooled);
      }
      // B read alice after A's transfer wrote her account, with no reset between: one unit with A.
      expect((await harness.lab.summary(id)).units).toMatchObject({ runRows: 2, analysisUnits: 1 });
      const suggested = await harness.lab.toolSuggestions(id);
      expect(suggested.map((s) => [s.tool, s.suggestedClass, s.source])).toEqual([
        ["get_balance", "read_only", "mcp:bank"],
        ["ping", "read_only", "mcp:bank"],
        ["send_money", "async_handle", "mcp:bank"],
      ]);
    } finally {
      await Promise.all([sseBank.close(), jsonBank.close()]);
    }
  }, 120_000);

  it("answers an agent 502 with a JSON-RPC error naming the cause when the MCP server cannot be reached, and records the call as requested, still open", async () => {
    const { id } = await harness.lab.createEvaluation({ name: "recorded bank, server down" });
    const recorder = await startRecorder(id, "down", "http://127.0.0.1:9/mcp");
    const answer = await fetch(recorder.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "send_money", arguments: { amount: 5 } } }),
    });
    expect(answer.status).toBe(502);
    expect(await answer.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { message: expect.stringMatching(/could not be reached/) },
    });
    const effects = await until(
      "the call recorded",
      () => liveEffects(harness, id, "down"),
      (recorded) => recorded.length > 0,
    );
    // No answer came: the recorder cannot know the call's outcome, so it stays open (unresolved if scored), never final.
    expect(effects).toMatchObject([
      { effectId: expect.stringMatching(/^rec-[0-9a-f]{8}-call-7$/), tool: "send_money", statusAtScoring: "pending" },
    ]);
    const exit = exited(recorder.process);
    recorder.process.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 60_000);
});
