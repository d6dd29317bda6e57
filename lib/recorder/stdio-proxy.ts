// The MCP recorder over stdio: the agent starts the recorder as its MCP server; the recorder starts
// the real server and passes every JSON-RPC message between the two as it came (the very bytes of
// its line), forwarding first and observing after, so recording never delays, alters or blocks the
// agent's traffic. What it observes goes to a Recording (recording.ts): events spooled and sent in the
// background, tasks polled through this same connection until terminal, also after the agent has gone.
//
// What the server sends that is not a message, or cannot be passed on, is answered to the agent by the
// recorder itself, so that the agent never waits for an answer that cannot come:
// - a line that is not JSON-RPC: the agent's pending request is answered with an error naming the
//   line (when several are pending, the line cannot be told apart: each is answered so), and its call
//   recorded failed with that error;
// - a message over READ_LIMIT_BYTES is passed on unread (its id read from its ends), its call recorded
//   with a note saying so; one over MAX_MESSAGE_BYTES is refused with an error naming the limit;
// - the server exiting: every pending request is answered with an error naming its exit code or
//   signal, and its call recorded with status unknown (it may have happened); the agent's session
//   then ends, and the recorder follows nothing further on a server that is gone.
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { McpObserver, JsonRpcMessage } from "./observer";
import type { RecorderPresence } from "./presence";
import { ASK_TIMEOUT_MS, OWN_ID, Recording, now, sleep, type Channel, type RecordingOptions } from "./recording";
import { LineReader, MAX_MESSAGE_BYTES, READ_LIMIT_BYTES, sniffMessage, startOf, type Line } from "./stdio-lines";

export interface StdioRecorderOptions extends RecordingOptions {
  upstream: { command: string; args: string[]; env?: Record<string, string>; cwd?: string };
  agent?: { stdin: Readable; stdout: Writable };
  observer: McpObserver;
  /** Registers the recorder with its run before the agent's first message is passed on, and says when it stops. */
  presence: Pick<RecorderPresence, "start" | "stop">;
  /** How long to wait for the outbox to empty at the end; what is left stays on disk for the next run. */
  drainMs?: number;
}

/** The JSON-RPC error codes the recorder answers with on the server's behalf (docs/recording.md). */
export const RECORDER_ERRORS = {
  /** The server sent a line that is not JSON-RPC, or a message over MAX_MESSAGE_BYTES. */
  badMessage: -32603,
  /** The server exited (or had exited) before answering; the MCP SDK's own code for a closed connection. */
  serverGone: -32000,
} as const;

const MiB = (bytes: number) => `${bytes / 2 ** 20} MiB`;

const withoutRecorderVariables = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("BOUNDARY_LAB_")),
  );

/** A parsed line if it is one JSON-RPC 2.0 message (a request, a notification or a response), else null. */
function asJsonRpc(line: Buffer): JsonRpcMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return null;
  const id = message.id;
  if (typeof message.method === "string") return id === undefined || typeof id === "string" || typeof id === "number" ? message : null;
  return (typeof id === "string" || typeof id === "number" || id === null) && ("result" in message || "error" in message) ? message : null;
}

const keyOf = (id: string | number) => JSON.stringify(id);

/** Runs until the agent has gone, every task polled is settled (or out of bound) and the outbox drained (or out of time). */
export async function runStdioRecorder(options: StdioRecorderOptions): Promise<{ unsent: number }> {
  const { observer, outbox, log } = options;
  const agentIn = options.agent?.stdin ?? process.stdin;
  const agentOut = options.agent?.stdout ?? process.stdout;
  const recording = new Recording(options);
  const answers = new Map<string, (result: Record<string, unknown> | undefined) => void>();
  /** The agent's requests passed on and not answered yet, by key of their id. */
  const pending = new Map<string, string | number>();
  /** The agent's requests the recorder answered itself: a late answer of the server's is not passed on. */
  const answeredByRecorder = new Set<string>();
  let ownIds = 0;

  const server: ChildProcess = spawn(options.upstream.command, options.upstream.args, {
    // The server gets the environment the agent gave the recorder (it configures the server), less the recorder's own key.
    env: { ...withoutRecorderVariables(process.env), ...options.upstream.env } as NodeJS.ProcessEnv,
    cwd: options.upstream.cwd,
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    server.once("spawn", resolve);
    server.once("error", reject);
  });
  let serverExit: string | null = null;
  const serverClosed = new Promise<void>((resolve) =>
    server.once("close", (code, signal) => {
      serverExit = signal ? `was killed by signal ${signal}` : `exited with code ${code}`;
      resolve();
    }),
  );
  server.stdin!.on("error", (error: Error) => log(`to the server: ${error.message}`));

  let agentPresent = true;
  let leave: () => void = () => undefined;
  const agentGone = new Promise<void>((resolve) => (leave = resolve));
  const agentLeft = () => {
    if (!agentPresent) return;
    agentPresent = false;
    agentIn.pause();
    server.stdout!.resume(); // it may wait on the agent's pipe draining: the rest goes to the recorder alone
    leave();
  };
  // The agent's end of the pipe may close before its input is seen to end (its process gone): a message
  // forwarded then (a server's task status notification) fails with EPIPE, which would end the recorder
  // and the tasks it follows. The agent has gone.
  agentOut.on("error", (error: Error) => {
    if (agentPresent) log(`to the agent: ${error.message}; the agent has gone`);
    agentLeft();
  });
  const toAgent = (bytes: Buffer | string) => {
    if (!agentPresent) return;
    // The agent reading slowly slows the server, never fills the recorder's memory.
    if (!agentOut.write(bytes)) {
      server.stdout!.pause();
      agentOut.once("drain", () => server.stdout!.resume());
    }
  };
  /** Answers the agent's request `id` on the server's behalf; `record` says how its call is recorded. */
  const answerAgent = (id: string | number, code: number, message: string, record: "failed" | "unknown") => {
    const key = keyOf(id);
    pending.delete(key);
    answeredByRecorder.add(key);
    toAgent(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
    const at = now();
    const observation =
      record === "failed"
        ? observer.fromServer({ jsonrpc: "2.0", id, error: { code, message } }, at)
        : observer.unanswered(id, message, at);
    recording.record(observer, observation, channel);
  };

  // The agent's messages wait for the run to be opened and this recorder registered (bounded): a score
  // that follows the agent's last call then finds the run, and waits for what this recorder saw.
  let toServerQueue: Buffer[] | null = [];
  const toServer = (bytes: Buffer) => {
    if (toServerQueue) toServerQueue.push(bytes);
    else if (serverExit === null) server.stdin!.write(bytes);
  };
  void options.presence.start().finally(() => {
    const queued = toServerQueue ?? [];
    toServerQueue = null;
    for (const bytes of queued) toServer(bytes);
  });

  const ask: Channel["ask"] = async (method, params) => {
    if (serverExit !== null) return undefined;
    const id = `${OWN_ID}${++ownIds}`;
    const answered = new Promise<Record<string, unknown> | undefined>((resolve) => answers.set(id, resolve));
    server.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    const result = await Promise.race([answered, sleep(ASK_TIMEOUT_MS).then(() => undefined)]);
    answers.delete(id);
    return result;
  };
  // One connection: the server closing it ends every poll (recording.serverClosed).
  const channel: Channel = { ask, isOpen: () => serverExit === null };

  const fromAgent = new LineReader((line: Line) => {
    const at = now();
    if (line.kind === "over_limit") {
      const { id } = sniffMessage(line.head, line.tail);
      log(`the agent sent a message of ${line.bytes} bytes, over the limit of ${MiB(MAX_MESSAGE_BYTES)}: not passed on`);
      if (id !== undefined && agentPresent)
        toAgent(
          `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: RECORDER_ERRORS.badMessage, message: `the request (${line.bytes} bytes) is over the MCP recorder's limit of ${MiB(MAX_MESSAGE_BYTES)} per message: not passed on` } })}\n`,
        );
      return;
    }
    const message = line.line.length <= READ_LIMIT_BYTES ? asJsonRpc(line.line) : null;
    const unread =
      line.line.length > READ_LIMIT_BYTES ? sniffMessage(startOf(line.line, 1_024), line.line.subarray(-1_024).toString()) : null;
    const id = message?.id ?? unread?.id;
    const method = message?.method ?? unread?.method;
    const isRequest = id !== undefined && id !== null && typeof method === "string";
    if (isRequest && serverExit !== null) {
      // Never passed on: its call certainly did not happen.
      recording.record(observer, observer.fromAgent({ jsonrpc: "2.0", id, method, params: message?.params ?? {} }, at), channel);
      answerAgent(id, RECORDER_ERRORS.serverGone, `the MCP server ${serverExit}: the request was not passed on`, "failed");
      return;
    }
    toServer(Buffer.concat([line.line, Buffer.from("\n")]));
    if (isRequest) {
      pending.set(keyOf(id), id);
      answeredByRecorder.delete(keyOf(id));
    }
    if (message) recording.record(observer, observer.fromAgent(message, at), channel);
    else if (isRequest)
      recording.record(
        observer,
        observer.fromAgent({ jsonrpc: "2.0", id, method, params: unread?.tool ? { name: unread.tool } : {} }, at),
        channel,
      );
  });

  /** What the server sent that is not a message for the agent: every pending request is answered with `what`. */
  const notAMessage = (what: string) => {
    const waiting = [...pending.values()];
    log(`${what}${waiting.length === 0 ? " (no request was pending)" : ""}`);
    const message =
      waiting.length > 1
        ? `${what} (${waiting.length} requests were pending and it cannot be told whose answer it was: each is answered so)`
        : what;
    for (const id of waiting) answerAgent(id, RECORDER_ERRORS.badMessage, message, "failed");
  };

  const fromServer = new LineReader((line: Line) => {
    const at = now();
    if (line.kind === "over_limit") {
      const { id } = sniffMessage(line.head, line.tail);
      const what = `the MCP server sent a message of ${line.bytes} bytes, over the MCP recorder's limit of ${MiB(MAX_MESSAGE_BYTES)} per message: not passed on`;
      if (typeof id === "string" && id.startsWith(OWN_ID)) answers.get(id)?.(undefined);
      else if (id !== undefined && pending.has(keyOf(id))) answerAgent(id, RECORDER_ERRORS.badMessage, what, "unknown");
      else notAMessage(what);
      return;
    }
    if (line.line.length > READ_LIMIT_BYTES) {
      const head = startOf(line.line, 1_024);
      const sniffed = sniffMessage(head, line.line.subarray(-1_024).toString("utf8"));
      if (!/^\s*\{/.test(head)) return notAMessage(`the MCP server sent a line that is not JSON-RPC: ${startOf(head)}`);
      if (typeof sniffed.id === "string" && sniffed.id.startsWith(OWN_ID)) return answers.get(sniffed.id)?.(undefined);
      const key = sniffed.id === undefined ? undefined : keyOf(sniffed.id);
      if (key !== undefined && sniffed.method === undefined && answeredByRecorder.has(key)) return;
      toAgent(Buffer.concat([line.line, Buffer.from("\n")]));
      if (key !== undefined && sniffed.method === undefined && pending.delete(key)) {
        const detail = `the answer (${line.line.length} bytes) was passed on unread: over the MCP recorder's reading limit of ${MiB(READ_LIMIT_BYTES)} per message`;
        recording.record(observer, observer.unreadAnswer(sniffed.id!, detail, sniffed.isError, at), channel);
      } else log(`passed on a message of ${line.line.length} bytes unread (over ${MiB(READ_LIMIT_BYTES)})`);
      return;
    }
    const message = asJsonRpc(line.line);
    if (!message) return notAMessage(`the MCP server sent a line that is not JSON-RPC: ${startOf(line.line.toString("utf8").trim())}`);
    const id = message.id;
    if (typeof id === "string" && id.startsWith(OWN_ID)) {
      answers.get(id)?.(message.result);
      return;
    }
    const isResponse = message.method === undefined && id !== undefined && id !== null;
    if (isResponse && answeredByRecorder.has(keyOf(id))) {
      log(`the MCP server answered request ${JSON.stringify(id)} after the recorder had answered it with an error: not passed on`);
      return;
    }
    if (isResponse) pending.delete(keyOf(id));
    toAgent(Buffer.concat([line.line, Buffer.from("\n")]));
    recording.record(observer, observer.fromServer(message, at), channel);
  });

  server.stdout!.on("data", (chunk: Buffer) => fromServer.push(chunk));
  server.stdout!.on("end", () => {
    const cut = fromServer.end();
    if (cut > 0) log(`the MCP server's output ended in the middle of a line (${cut} bytes): dropped`);
  });
  void serverClosed.then(() => {
    recording.serverClosed();
    for (const resolve of answers.values()) resolve(undefined);
    if (agentPresent) {
      log(`the MCP server ${serverExit}${pending.size > 0 ? `; answering the agent's ${pending.size} pending request(s)` : ""}`);
      for (const id of [...pending.values()])
        answerAgent(id, RECORDER_ERRORS.serverGone, `the MCP server ${serverExit} before answering`, "unknown");
      // Its session is over: the agent sees its server's output end, as without the recorder.
      agentOut.end();
      agentLeft();
    } else
      for (const id of [...pending.values()])
        recording.record(
          observer,
          observer.unanswered(id, `the MCP server ${serverExit} before answering (the agent had gone)`, now()),
          channel,
        );
  });

  agentIn.on("data", (chunk: Buffer) => fromAgent.push(chunk));
  agentIn.on("error", (error: Error) => log(`from the agent: ${error.message}`));
  agentIn.once("end", () => {
    fromAgent.end();
    agentLeft();
  });
  outbox.start();

  await agentGone;
  agentOut.end();
  // The agent has gone (its run may be scored already): its tasks are still followed, within the bound.
  if (recording.following > 0) log(`the agent has gone; following ${recording.following} task(s) until terminal`);
  await recording.settle();
  await closeServer(server, serverClosed);
  const finished = await recording.finish(options.drainMs ?? 30_000);
  await options.presence.stop();
  return finished;
}

/** Ends the server as an MCP client does: its input closed, then SIGTERM, then SIGKILL, two seconds apart. */
async function closeServer(server: ChildProcess, closed: Promise<void>): Promise<void> {
  const within = (ms: number) => Promise.race([closed.then(() => true), sleep(ms).then(() => false)]);
  server.stdin!.end();
  if (await within(2_000)) return;
  server.kill("SIGTERM");
  if (await within(2_000)) return;
  server.kill("SIGKILL");
  await closed;
}
