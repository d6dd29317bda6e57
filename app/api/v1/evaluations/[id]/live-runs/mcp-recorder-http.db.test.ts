import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { spoolFileOf } from "@/lib/recorder/flags";
import { serveBankOverHttp } from "@/lib/testing/mcp-bank";
import {
  exited,
  liveEffects,
  transferRun,
  TRANSFER_DELAY_MS,
  useRecorderHarness,
  type RecorderHarness,
} from "@/lib/testing/recorder-harness";
import { until } from "@/lib/testing/until";

// The MCP recorder in Streamable HTTP mode (docs/recording.md, `--listen PORT --upstream URL`: the
// bank's POSTs answered with SSE streams or JSON bodies) on a real agent loop, as mcp-recorder.db.test.ts
// proves it over stdio; Boundary Lab's route handlers serve the recorder over real HTTP on a real PostgreSQL.
let harness: RecorderHarness;
const recorders: ChildProcess[] = [];
useRecorderHarness(
  async () => {
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
    return [
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
    ];
  },
  (started) => (harness = started),
);
afterAll(() => {
  for (const recorder of recorders) recorder.kill("SIGKILL");
});

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
        const scored = await transferRun(harness, await agentOverHttp(recorder.url), id, run, balance);
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
