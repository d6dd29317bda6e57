// The MCP recorder over stdio (issue 23 §2): the agent starts the recorder as its MCP server; the
// recorder starts the real server and passes every JSON-RPC message between the two as it came,
// forwarding first and observing after, so recording never delays, alters or blocks the agent's
// traffic. What it observes goes to a Recording (recording.ts): events spooled and sent in the
// background, tasks polled through this same connection until terminal, also after the agent has gone.
import type { Readable, Writable } from "node:stream";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpObserver, JsonRpcMessage } from "./observer";
import type { RecorderPresence } from "./presence";
import { ASK_TIMEOUT_MS, OWN_ID, Recording, now, sleep, type Channel, type RecordingOptions } from "./recording";

export interface StdioRecorderOptions extends RecordingOptions {
  upstream: { command: string; args: string[]; env?: Record<string, string>; cwd?: string };
  agent?: { stdin: Readable; stdout: Writable };
  observer: McpObserver;
  /** Registers the recorder with its run before the agent's first message is passed on, and says when it stops. */
  presence: Pick<RecorderPresence, "start" | "stop">;
  /** How long to wait for the outbox to empty at the end; what is left stays on disk for the next run. */
  drainMs?: number;
}

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
  const recording = new Recording(options);
  const answers = new Map<string, (result: Record<string, unknown> | undefined) => void>();
  let ownIds = 0;

  const ask: Channel["ask"] = async (method, params) => {
    const id = `${OWN_ID}${++ownIds}`;
    const answered = new Promise<Record<string, unknown> | undefined>((resolve) => answers.set(id, resolve));
    await upstream.send({ jsonrpc: "2.0", id, method, params }).catch(() => answers.get(id)?.(undefined));
    const result = await Promise.race([answered, sleep(ASK_TIMEOUT_MS).then(() => undefined)]);
    answers.delete(id);
    return result;
  };
  // One connection: the server closing it ends every poll (recording.serverClosed).
  const channel: Channel = { ask, isOpen: () => true };

  let agentPresent = true;
  const agentGone = new Promise<void>((resolve) => (agent.onclose = resolve)).then(() => void (agentPresent = false));
  // The agent's end of the pipe may close before its input is seen to end (its process gone): a message
  // forwarded then (a server's task status notification) fails with EPIPE, which would end the recorder
  // and the tasks it follows. The agent has gone.
  agentOut.on("error", (error: Error) => {
    if (agentPresent) log(`to the agent: ${error.message}; the agent has gone`);
    agentPresent = false;
    void agent.close();
  });
  // The run is opened and this recorder registered before the agent's first message is passed on (bounded):
  // a score that follows the agent's last call then finds the run, and waits for what this recorder saw.
  const registered = options.presence.start();
  agent.onmessage = (message: JSONRPCMessage) => {
    const at = now();
    // Each waits on the same promise: once it has settled they go on in the order they came.
    void registered.then(() => upstream.send(message)).catch((error: Error) => log(`to the server: ${error.message}`));
    recording.record(observer, observer.fromAgent(message as JsonRpcMessage, at), channel);
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    const id = (message as JsonRpcMessage).id;
    if (typeof id === "string" && id.startsWith(OWN_ID)) {
      answers.get(id)?.((message as JsonRpcMessage).result);
      return;
    }
    if (agentPresent) void agent.send(message).catch((error: Error) => log(`to the agent: ${error.message}`));
    recording.record(observer, observer.fromServer(message as JsonRpcMessage, now()), channel);
  };
  upstream.onclose = () => {
    recording.serverClosed();
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
  if (recording.following > 0) log(`the agent has gone; following ${recording.following} task(s) until terminal`);
  await recording.settle();
  await upstream.close();
  const finished = await recording.finish(options.drainMs ?? 30_000);
  await options.presence.stop();
  return finished;
}
