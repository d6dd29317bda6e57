import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/client/api-client";
import type { EvaluationRunListItem } from "@/lib/evaluations/read/read-boundary";
import type { EffectPolicy } from "@/lib/evaluations/effect-policy-schema";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";
import { until } from "@/lib/testing/until";

// A server nobody on this project wrote: the MCP reference filesystem server
// (@modelcontextprotocol/server-filesystem, a pinned dev dependency) behind `workers/mcp-record.ts`
// over stdio, an agent on the MCP SDK's client, Boundary Lab's route handlers over real HTTP on a
// real PostgreSQL. Run fs-1 writes a.txt (balance=100, then edited to balance=95); run fs-2, with no
// reset between, reads it and gets fs-1's state. The recorder sees only tool calls and their
// arguments: the policy's templates name the file they touch, so the two runs are one analysis unit
// and fs-2 is exposed; with an empty policy every tool is unclassified and holds its run open.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };
let lab: EvaluationClient;

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "filesystem recorder"));
  const [evaluations, summary, runs, suggestions, open, read, events, score, recorders] = await Promise.all([
    import("../../route"),
    import("../summary/route"),
    import("../runs/route"),
    import("../tool-suggestions/route"),
    import("./route"),
    import("./[externalId]/route"),
    import("./[externalId]/events/route"),
    import("./[externalId]/score/route"),
    import("./[externalId]/recorders/[recorderId]/route"),
  ]);
  const evaluation = String.raw`^\/api\/v1\/evaluations\/(?<id>[^/]+)`;
  const liveRun = String.raw`${evaluation}\/live-runs\/(?<externalId>[^/]+)`;
  api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    { path: new RegExp(`${evaluation}/summary$`), methods: { GET: summary.GET } },
    { path: new RegExp(`${evaluation}/runs$`), methods: { GET: runs.GET } },
    { path: new RegExp(`${evaluation}/tool-suggestions$`), methods: { GET: suggestions.GET, POST: suggestions.POST } },
    { path: new RegExp(`${evaluation}/live-runs$`), methods: { POST: open.POST } },
    { path: new RegExp(`${liveRun}$`), methods: { GET: read.GET } },
    { path: new RegExp(`${liveRun}/events$`), methods: { POST: events.POST } },
    { path: new RegExp(`${liveRun}/score$`), methods: { POST: score.POST } },
    { path: new RegExp(`${liveRun}/recorders/(?<recorderId>[^/]+)$`), methods: { PUT: recorders.PUT } },
  ]);
  lab = evaluationClient({ baseUrl: api.origin, apiKey: key });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await database?.drop();
});

const TEMPLATED: EffectPolicy = {
  tools: {
    write_file: { class: "sync_confirmed", writes: "fs:{path}" },
    edit_file: { class: "sync_confirmed", writes: "fs:{path}" },
    read_text_file: { class: "read_only", reads: "fs:{path}" },
  },
};
// Every call names the file the same way (relative to the server's one allowed folder), so that one file is one surface.
const FILE = "a.txt";

const get = async (url: string) => {
  const response = await fetch(`${api.origin}${url}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as unknown };
};

/** An agent's MCP client whose server is the recorder in front of the filesystem server, allowed `folder` alone. */
async function agentThroughRecorder(evaluationId: string, run: string, folder: string, spool: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...["--import", "tsx", path.resolve("workers/mcp-record.ts")],
      ...["--evaluation", evaluationId, "--run", run, "--task", "ledger-file", "--api", api.origin, "--spool", spool, "--"],
      process.execPath,
      path.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
      folder,
    ],
    env: { ...getDefaultEnvironment(), BOUNDARY_LAB_API_KEY: key },
    stderr: "inherit",
  });
  const agent = new Client({ name: "filesystem agent", version: "1.0.0" });
  await agent.connect(transport);
  return agent;
}

const textOf = (answer: Awaited<ReturnType<Client["callTool"]>>) =>
  (answer.content as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

/** One run: the agent's calls through the recorder, every answer recorded before the harness scores it at the endpoint. */
async function recordedRun(evaluationId: string, run: string, folder: string, calls: (agent: Client) => Promise<number>) {
  const agent = await agentThroughRecorder(evaluationId, run, folder, mkdtempSync(path.join(tmpdir(), "bl-filesystem-spool-")));
  const callCount = await calls(agent);
  await until(
    `${run}: every call's answer recorded`,
    async () => {
      const { status, body } = await get(`/api/v1/evaluations/${evaluationId}/live-runs/${run}`);
      return status === 200 ? (body as { record: { effects: { acknowledgedAt?: string }[] } }).record.effects : [];
    },
    (effects) => effects.length === callCount && effects.every((e) => e.acknowledgedAt !== undefined),
  );
  await lab.scoreLiveRun(evaluationId, run, { endpointLabel: "success" });
  await agent.close();
}

/** fs-1 writes a.txt and edits it; fs-2, with no reset between, reads what fs-1 left. */
async function filesystemScenario(policy: EffectPolicy, name: string) {
  const { id } = await lab.createEvaluation({ name, effectPolicy: policy });
  const folder = mkdtempSync(path.join(tmpdir(), "bl-filesystem-"));
  await recordedRun(id, "fs-1", folder, async (agent) => {
    expect((await agent.callTool({ name: "write_file", arguments: { path: FILE, content: "balance=100" } })).isError).toBeFalsy();
    const edited = await agent.callTool({
      name: "edit_file",
      arguments: { path: FILE, edits: [{ oldText: "balance=100", newText: "balance=95" }] },
    });
    expect(edited.isError).toBeFalsy();
    return 2;
  });
  expect(readFileSync(path.join(folder, FILE), "utf8")).toBe("balance=95");
  await recordedRun(id, "fs-2", folder, async (agent) => {
    // fs-1's state, read by fs-2.
    expect(textOf(await agent.callTool({ name: "read_text_file", arguments: { path: FILE } }))).toBe("balance=95");
    return 1;
  });
  const runs = ((await get(`/api/v1/evaluations/${id}/runs`)).body as { runs: EvaluationRunListItem[] }).runs;
  return { summary: await lab.summary(id), runs: Object.fromEntries(runs.map((r) => [r.externalId, r])) };
}

describe("the filesystem reference server through the MCP recorder", () => {
  it("with templates over the calls' paths: fs-1 and fs-2 are one analysis unit, fs-2 exposed (1/2), both final", async () => {
    const { summary, runs } = await filesystemScenario(TEMPLATED, "filesystem, templated");
    expect(summary).toMatchObject({
      runs: 2,
      final: { successes: 2, n: 2 },
      units: { runRows: 2, analysisUnits: 1, largest: 2 },
      exposures: { n: 1, of: 2 },
    });
    expect(runs["fs-1"]).toMatchObject({ finality: "final", inheritedState: "none" });
    expect(runs["fs-2"]).toMatchObject({ finality: "final", inheritedState: "internal", analysisUnit: runs["fs-1"]!.analysisUnit });
  }, 120_000);

  it("with an empty policy: every tool unclassified, every run unresolved (unclassified_tool), and nothing names the file they share", async () => {
    const { summary, runs } = await filesystemScenario({ tools: {} }, "filesystem, empty policy");
    expect(summary).toMatchObject({
      runs: 2,
      final: { successes: 0, n: 0 },
      unresolved: { n: 2, byReason: { unclassified_tool: 2 } },
      units: { runRows: 2, analysisUnits: 2 },
      exposures: { n: 0, of: 2 },
    });
    expect(runs["fs-1"]).toMatchObject({ finality: "unresolved", unresolvedReason: "unclassified_tool", unresolvedTool: "write_file" });
    expect(runs["fs-2"]).toMatchObject({ finality: "unresolved", unresolvedReason: "unclassified_tool", unresolvedTool: "read_text_file" });
  }, 120_000);
});
