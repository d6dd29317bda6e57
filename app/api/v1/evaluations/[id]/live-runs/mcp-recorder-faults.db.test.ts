import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/client/api-client";
import type { LiveRunRecorder } from "@/lib/evaluations/live/live-run-schemas";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";
import { until } from "@/lib/testing/until";

// The MCP recorder when its server misbehaves: an agent on the MCP SDK's client reaches a server that
// prints a line that is not JSON-RPC, answers with 50 MiB in one line, and exits mid-call
// (lib/testing/mcp-faulty-server.ts), through the built recorder (dist/mcp-record.mjs, as `npm run
// mcp:record` and `npx boundary-lab-mcp-record` start it) as its own process; Boundary Lab's route
// handlers serve the recorder over real HTTP on a real PostgreSQL. Every call the agent made is
// recorded, and every fault is answered to the agent with a JSON-RPC error naming it, never a wait.
let database: TestDatabase;
let api: { origin: string; close(): Promise<void> };
let key: string;
let lab: EvaluationClient;
const spool = mkdtempSync(path.join(tmpdir(), "bl-recorder-faults-spool-"));
/** Well under the MCP SDK's 60 s default: a fault the recorder does not answer fails the test as a timeout. */
const AGENT_TIMEOUT_MS = 15_000;

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-recorder.mjs", "--if-stale"], { stdio: "inherit" });
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "recorder faults"));
  const [open, events, score, read, suggestions, recorders, evaluations] = await Promise.all([
    import("./route"),
    import("./[externalId]/events/route"),
    import("./[externalId]/score/route"),
    import("./[externalId]/route"),
    import("../tool-suggestions/route"),
    import("./[externalId]/recorders/[recorderId]/route"),
    import("../../route"),
  ]);
  api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
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
  lab = evaluationClient({ baseUrl: api.origin, apiKey: key });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await database?.drop();
});

type LiveRunView = {
  record: { effects: { effectId: string; tool: string; callId?: string; statusAtScoring: string; notes?: string }[] };
  recorders: LiveRunRecorder[];
};

async function liveRun(evaluationId: string, run: string): Promise<LiveRunView> {
  const response = await fetch(`${api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return response.status === 200 ? ((await response.json()) as LiveRunView) : { record: { effects: [] }, recorders: [] };
}

/** An agent's MCP client whose server is the built recorder in front of the faulty server. */
async function agentThroughRecorder(evaluationId: string, run: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.resolve("dist/mcp-record.mjs"),
      ...["--evaluation", evaluationId, "--run", run, "--task", "faults", "--api", api.origin, "--spool", spool, "--"],
      process.execPath,
      ...["--import", "tsx", path.resolve("lib/testing/mcp-faulty-server.ts")],
    ],
    env: { ...getDefaultEnvironment(), BOUNDARY_LAB_API_KEY: key },
    stderr: "inherit",
    // The MCP SDK's stdio client refuses a message over 10 MiB (and ends its session) unless told otherwise, recorder or not.
    maxBufferSize: 128 * 2 ** 20,
  });
  const agent = new Client({ name: "test agent", version: "1.0.0" });
  await agent.connect(transport);
  return agent;
}

const call = (agent: Client, name: string, args: Record<string, unknown>, timeout = AGENT_TIMEOUT_MS) =>
  agent.callTool({ name, arguments: args }, undefined, { timeout });
const textOf = (result: Awaited<ReturnType<typeof call>>) => (result.content as { type: string; text: string }[])[0]!.text;

describe("the MCP recorder when its server misbehaves (stdio)", () => {
  it("answers a malformed line, a 50 MiB result and the server's exit to the agent at once, and records every call", async () => {
    const { id } = await lab.createEvaluation({
      name: "recorded faulty server",
      effectPolicy: {
        tools: {
          echo: "sync_confirmed",
          wait: "sync_confirmed",
          garbage: "sync_confirmed",
          huge: "sync_confirmed",
          crash: "sync_confirmed",
        },
      },
    });
    const agent = await agentThroughRecorder(id, "faults");
    onTestFinished(() => agent.close());
    expect(textOf(await call(agent, "echo", { says: "before" }))).toBe("before");

    // One request pending: the malformed line is its answer, an error naming the line.
    const garbageLine = `garbage ${"#".repeat(300)}`;
    await expect(call(agent, "garbage", { line: garbageLine })).rejects.toThrow(
      `the MCP server sent a line that is not JSON-RPC: ${garbageLine.slice(0, 200)}`,
    );
    // Two pending: the line cannot be told apart, so both are answered with the error (neither waits for its timeout).
    const waiting = call(agent, "wait", { ms: 3_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [waited, garbled] = await Promise.allSettled([waiting, call(agent, "garbage", { line: "{not json" })]);
    for (const outcome of [waited, garbled])
      expect(outcome).toMatchObject({ status: "rejected", reason: { message: expect.stringContaining("not JSON-RPC: {not json") } });
    // The server is still there: the session goes on.
    expect(textOf(await call(agent, "echo", { says: "after" }))).toBe("after");

    // 50 MiB in one line: passed on whole, as the server sent it. (The SDK's client takes 17-19 s to read
    // it on a loaded machine, through the recorder or straight from the server: its read buffer copies
    // itself at every chunk. Time enough for that, not a wait for an answer that never comes.)
    const huge = await call(agent, "huge", { megabytes: 50 }, 120_000);
    expect(textOf(huge)).toHaveLength(50 * 2 ** 20);
    expect(textOf(huge).replaceAll("x", "")).toBe("");

    // The server exits mid-call: the agent is answered with the cause, then its session ends.
    const closed = new Promise<void>((resolve) => (agent.onclose = resolve));
    await expect(call(agent, "crash", { code: 3 })).rejects.toThrow("the MCP server exited with code 3 before answering");
    await closed;

    // Every call made is recorded: failed with the recorder's word where the agent got its error, open
    // (status unknown) where the server went before answering.
    const recorded = await until(
      "every call recorded, and the recorder stopped",
      () => liveRun(id, "faults"),
      (view) => view.record.effects.length === 7 && view.recorders.length === 1 && view.recorders[0]!.stoppedAt !== null,
    );
    expect(recorded.record.effects.map(({ tool, statusAtScoring }) => [tool, statusAtScoring])).toEqual([
      ["echo", "completed"],
      ["garbage", "failed"],
      ["wait", "failed"],
      ["garbage", "failed"],
      ["echo", "completed"],
      ["huge", "completed"],
      ["crash", "unknown"],
    ]);
    const notes = recorded.record.effects.map((effect) => effect.notes);
    expect(notes[1]).toBe(`JSON-RPC error -32603: the MCP server sent a line that is not JSON-RPC: ${garbageLine.slice(0, 200)}`);
    expect(notes[2]).toMatch(/not JSON-RPC: \{not json.*2 requests were pending/);
    expect(notes[5]).toMatch(/passed on unread/);
    expect(notes[6]).toMatch(/the MCP server exited with code 3 before answering/);
    // The crashed call's outcome is unknown: the run is never final.
    expect(await lab.scoreLiveRun(id, "faults", { endpointLabel: "success" })).toMatchObject({ finality: "unresolved", tool: "crash" });
  }, 240_000);
});
