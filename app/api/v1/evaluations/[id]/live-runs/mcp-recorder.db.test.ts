import path from "node:path";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import {
  exited,
  liveEffects,
  liveRecorders,
  transferRun,
  TRANSFER_DELAY_MS,
  useRecorderHarness,
  type RecorderHarness,
} from "@/lib/testing/recorder-harness";
import { until } from "@/lib/testing/until";

// The MCP recorder (docs/recording.md) proved on a real agent loop: an agent built on the MCP SDK's
// client talks to the tests' own bank (lib/testing/mcp-bank.ts, transfers applied by the delayed-write
// service after a delay) through `workers/mcp-record.ts` as its own process, over stdio (Streamable
// HTTP mode: mcp-recorder-http.db.test.ts); Boundary Lab's route handlers serve the recorder over real
// HTTP on a real PostgreSQL. The harness scores each run at the endpoint, as evaluations do, while the
// transfer is still working.
let harness: RecorderHarness;
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

describe("the MCP recorder over stdio, on a real agent loop", () => {
  it("records a transfer still working at scoring as pending_at_scoring, later resolved_after_scoring; two runs on one account are one unit", async () => {
    const { id } = await harness.lab.createEvaluation({
      name: "recorded bank",
      effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } },
    });
    const first = await transferRun(harness, await agentThroughRecorder(id, "A", "bank-one"), id, "A", 100);
    expect(first).toMatchObject({ finality: "unresolved", reason: "pending_at_scoring", tool: "send_money" });
    const resolved = await until(
      "run A resolved after scoring",
      () => getEvaluationRun(harness.database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    expect(resolved?.effects.find((e) => e.tool === "send_money")?.handle).toMatch(/.+/);
    // Run B reads alice after A's transfer wrote her account (95 left), with no reset between: one unit with A.
    await transferRun(harness, await agentThroughRecorder(id, "B", "bank-one"), id, "B", 95);
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
    await transferRun(harness, await agentThroughRecorder(id, "A", "bank-two"), id, "A", 100);
    await until(
      "run A resolved",
      () => getEvaluationRun(harness.database.db, id, "A"),
      (run) => run?.unresolvedReason === "resolved_after_scoring",
    );
    // B's transfer reads and writes both accounts A wrote: the harness resets both, verified, before B starts.
    // (The bank's state is what A left: the resets' record is what is under test here.)
    await transferRun(harness, await agentThroughRecorder(id, "B", "bank-two"), id, "B", 95, async () => {
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
