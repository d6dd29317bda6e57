// The MCP recorder over stdio (issue 23 §2): the agent starts the recorder as its MCP server; the
// recorder starts the real server and passes every JSON-RPC message between the two as it came,
// forwarding first and observing after, so recording never delays, alters or blocks the agent's
// traffic. What it observes (observer.ts) goes to the outbox (spooled on disk, sent in the
// background); tasks answered to tool calls are polled with tasks/get until terminal, also after
// the agent has gone, within a bound.
import type { Readable, Writable } from "node:stream";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ToolSuggestion } from "../evaluations/tool-suggestions";
import type { BoundaryLabSink } from "./boundary-lab-sink";
import type { McpObserver, JsonRpcMessage, Observation } from "./observer";
import type { EventOutbox } from "./outbox";

export interface StdioRecorderOptions {
  upstream: { command: string; args: string[]; env?: Record<string, string>; cwd?: string };
  agent?: { stdin: Readable; stdout: Writable };
  observer: McpObserver;
  outbox: EventOutbox;
  sink: Pick<BoundaryLabSink, "suggest">;
  /** How long a task is polled at the most (from its acknowledgement), also after the agent has gone. */
  pollBoundMs: number;
  /** Between polls, unless the task names its own pollInterval. */
  pollIntervalMs?: number;
  /** How long to wait for the outbox to empty at the end; what is left stays on disk for the next run. */
  drainMs?: number;
  log: (line: string) => void;
}

/** The recorder's own request ids: never an agent's, and never forwarded to it. */
const OWN_ID = "boundary-lab-recorder-";
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const withoutRecorderVariables = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("BOUNDARY_LAB_")),
  );

/** Runs until the agent has gone, every task polled is settled (or out of bound) and the outbox drained (or out of time). */
export async function runStdioRecorder(options: StdioRecorderOptions): Promise<{ unsent: number }> {
  const { observer, outbox, log } = options;
  const upstream = new StdioClientTransport({
    command: options.upstream.command,
    args: options.upstream.args,
    // The server gets the environment the agent gave the recorder (it configures the server), less the recorder's own key.
    env: { ...withoutRecorderVariables(process.env), ...options.upstream.env },
    cwd: options.upstream.cwd,
    stderr: "inherit",
  });
  const agentIn = options.agent?.stdin ?? process.stdin;
  const agentOut = options.agent?.stdout ?? process.stdout;
  const agent = new StdioServerTransport(agentIn, agentOut);
  const answers = new Map<string, (result: Record<string, unknown> | undefined) => void>();
  const polls = new Set<Promise<void>>();
  const suggestions = new Map<string, ToolSuggestion>();
  let upstreamOpen = true;
  let ownIds = 0;

  const record = (observation: Observation) => {
    outbox.add(observation.events);
    for (const { taskId } of observation.poll) {
      const poll = pollTask(taskId).finally(() => polls.delete(poll));
      polls.add(poll);
    }
    if (observation.suggestions.length > 0) {
      for (const s of observation.suggestions) suggestions.set(s.tool, s);
      void sendSuggestions();
    }
  };

  let suggesting = false;
  async function sendSuggestions(): Promise<void> {
    if (suggesting) return;
    suggesting = true;
    try {
      for (let attempt = 1; suggestions.size > 0 && attempt <= 5; attempt++) {
        const batch = [...suggestions.values()];
        try {
          await options.sink.suggest(`mcp:${observer.serverName}`, batch);
          for (const s of batch) if (suggestions.get(s.tool) === s) suggestions.delete(s.tool);
        } catch (error) {
          log(`tool suggestions not sent (${(error as Error).message}); retrying`);
          await sleep(200 * 2 ** attempt);
        }
      }
    } finally {
      suggesting = false;
    }
  }

  /** One request of the recorder's own to the server; undefined when it fails or is not answered within 10 s. */
  async function ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const id = `${OWN_ID}${++ownIds}`;
    const answered = new Promise<Record<string, unknown> | undefined>((resolve) => answers.set(id, resolve));
    await upstream.send({ jsonrpc: "2.0", id, method, params }).catch(() => answers.get(id)?.(undefined));
    const result = await Promise.race([answered, sleep(10_000).then(() => undefined)]);
    answers.delete(id);
    return result;
  }

  async function pollTask(taskId: string): Promise<void> {
    const until = Date.now() + options.pollBoundMs;
    let interval = options.pollIntervalMs ?? 250;
    while (upstreamOpen && !observer.isSettled(taskId) && Date.now() < until) {
      await sleep(interval);
      const result = await ask("tasks/get", { taskId });
      if (typeof result?.pollInterval === "number" && result.pollInterval > 0) interval = Math.min(result.pollInterval, 10_000);
      if (result) record(observer.polled(taskId, result, now()));
    }
    if (!observer.isSettled(taskId)) log(`task ${taskId}: not terminal within the polling bound; its effect stays open`);
    // What a completed task wrote is in its result: the resources it links, touched when it was seen applied.
    const completedAt = observer.completedAt(taskId);
    if (completedAt && upstreamOpen) record(observer.taskResult(taskId, await ask("tasks/result", { taskId }), completedAt));
  }

  const agentGone = new Promise<void>((resolve) => (agent.onclose = resolve));
  agent.onmessage = (message: JSONRPCMessage) => {
    void upstream.send(message).catch((error: Error) => log(`to the server: ${error.message}`));
    record(observer.fromAgent(message as JsonRpcMessage, now()));
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    const id = (message as JsonRpcMessage).id;
    if (typeof id === "string" && id.startsWith(OWN_ID)) {
      answers.get(id)?.((message as JsonRpcMessage).result);
      return;
    }
    void agent.send(message).catch((error: Error) => log(`to the agent: ${error.message}`));
    record(observer.fromServer(message as JsonRpcMessage, now()));
  };
  upstream.onclose = () => {
    upstreamOpen = false;
    void agent.close();
  };
  upstream.onerror = (error) => log(`server: ${error.message}`);
  await upstream.start();
  await agent.start();
  outbox.start();

  // The SDK's stdio transport does not notice its input ending: the agent has gone when it does.
  agentIn.once("end", () => void agent.close());
  await agentGone;
  agentOut.end();
  // The agent has gone (its run may be scored already): its tasks are still followed, within the bound.
  if (polls.size > 0) log(`the agent has gone; following ${polls.size} task(s) until terminal`);
  await Promise.all([...polls]);
  upstreamOpen = false;
  await upstream.close();
  await sendSuggestions();
  const unsent = await outbox.drain(options.drainMs ?? 30_000);
  outbox.close();
  if (unsent > 0) log(`${unsent} event(s) not sent yet: kept on disk; the next recorder of this run sends them`);
  return { unsent };
}
