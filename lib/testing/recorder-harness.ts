// The MCP recorder's db tests' set-up (app/api/v1/evaluations/[id]/live-runs/mcp-recorder*.db.test.ts):
// a test database, the route handlers the file lists served over real HTTP, the delayed-write service
// behind the tests' bank, a spool folder; and what the tests ask of a run through the recorder.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { evaluationClient, type EvaluationClient } from "../evaluations/client/api-client";
import type { LiveRunRecorder } from "../evaluations/live/live-run-schemas";
import type { TestDatabase } from "./database";
import { routeTestDatabase } from "./route-test-database";
import { serveRoutes, type ServedRoute } from "./route-server";
import { until } from "./until";

export const TRANSFER_DELAY_MS = 1_500;

export interface RecorderHarness {
  database: TestDatabase;
  api: { origin: string };
  key: string;
  lab: EvaluationClient;
  service: ServiceProcess;
  /** The recorders' spool folder. */
  spool: string;
  close(): Promise<void>;
}

/** Registers the file's hooks; `routes` is called once the environment names the test database (the route modules read it). */
export function useRecorderHarness(routes: () => Promise<ServedRoute[]>, onReady: (harness: RecorderHarness) => void): void {
  let harness: RecorderHarness | undefined;
  beforeAll(async () => {
    harness = await startRecorderHarness(inject("embeddedAdminUrl"), routes);
    onReady(harness);
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });
}

async function startRecorderHarness(adminUrl: string, routes: () => Promise<ServedRoute[]>): Promise<RecorderHarness> {
  const { database, key } = await routeTestDatabase(adminUrl, "editor", "recorder");
  const api = await serveRoutes(await routes());
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
export async function liveEffects(harness: RecorderHarness, evaluationId: string, run: string) {
  const response = await fetch(`${harness.api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${harness.key}` },
  });
  if (response.status !== 200) return [];
  return (
    (await response.json()) as { record: { effects: { effectId: string; tool: string; statusAtScoring: string; handle?: string }[] } }
  ).record.effects;
}

/** Until the transfer's acknowledgement (with its task as handle) has reached Boundary Lab: scored before, the effect would be unverifiable. */
export const transferAcknowledged = (harness: RecorderHarness, evaluationId: string, run: string) =>
  until(
    "the transfer recorded acknowledged with its task",
    () => liveEffects(harness, evaluationId, run),
    (effects) => effects.some((e) => e.tool === "send_money" && e.statusAtScoring === "pending" && e.handle !== undefined),
  );

/**
 * One agent run, its MCP client connected through a recorder: reads alice's balance (`balance`: what
 * the runs before it left), sends 5 with a task, is scored at the endpoint, and stops without waiting for it.
 */
export async function transferRun(
  harness: RecorderHarness,
  agent: Client,
  evaluationId: string,
  run: string,
  balance: number,
  beforeRead?: () => Promise<void>,
) {
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

/** The recorders of a live run, with their last heartbeat. */
export async function liveRecorders(harness: RecorderHarness, evaluationId: string, run: string) {
  const response = await fetch(`${harness.api.origin}/api/v1/evaluations/${evaluationId}/live-runs/${run}`, {
    headers: { authorization: `Bearer ${harness.key}` },
  });
  return response.status === 200 ? ((await response.json()) as { recorders: LiveRunRecorder[] }).recorders : [];
}

export const exited = (recorder: ChildProcess) => new Promise<number | null>((resolve) => recorder.once("exit", (code) => resolve(code)));
