// The tests' own MCP server (docs/recording.md, The MCP recorder): a bank whose accounts live in the delayed-write service
// (DELAYED_WRITE_URL, namespace BANK_NAMESPACE). `get_balance` is read-only; `send_money` is
// task-based (MCP 2025-11-25 tasks): it is acknowledged with a task at once, and the delayed-write
// service applies the new balances TRANSFER_DELAY_MS later, so the task says `working` until then and
// its result links the accounts it wrote. Over stdio: mcp-bank-server.ts; over Streamable HTTP: serveBankOverHttp.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { z } from "zod";
import { DelayedWriteClient } from "../delayed-write/delayed-write-client";

export const bankConfigSchema = z.object({
  DELAYED_WRITE_URL: z.url(),
  BANK_NAMESPACE: z.string().min(1).default("bank"),
  TRANSFER_DELAY_MS: z.coerce.number().int().min(0).default(1_000),
});
export type BankConfig = z.infer<typeof bankConfigSchema>;

/** The bank's tasks, shared by every server (session) made from it. */
export const bankTasks = () => ({ taskStore: new InMemoryTaskStore(), taskMessageQueue: new InMemoryTaskMessageQueue() });

/** One MCP server of the bank (one per connection or HTTP session). */
export function bankServer(env: BankConfig, { taskStore, taskMessageQueue }: ReturnType<typeof bankTasks>): McpServer {
  const service = new DelayedWriteClient(env.DELAYED_WRITE_URL);
  const accountUri = (account: string) => `bank://accounts/${account}`;

  async function balanceOf(account: string): Promise<number> {
    const { entry } = await service.read(env.BANK_NAMESPACE, account);
    return typeof entry?.value === "number" ? entry.value : 100;
  }

  const server = new McpServer(
    { name: "bank", version: "1.0.0" },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore, taskMessageQueue },
  );

  server.registerTool(
    "get_balance",
    {
      description: "An account's balance",
      inputSchema: { account: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ account }) => ({
      content: [
        { type: "text", text: String(await balanceOf(account)) },
        { type: "resource_link", uri: accountUri(account), name: account },
      ],
    }),
  );

  // No I/O at all: what a call costs through a proxy, for bench:live's recorder overhead.
  server.registerTool("ping", { description: "Answers pong", annotations: { readOnlyHint: true } }, () => ({
    content: [{ type: "text", text: "pong" }],
  }));

  server.experimental.tasks.registerToolTask(
    "send_money",
    {
      description: "Moves money between two accounts; acknowledged at once with a task, applied later",
      inputSchema: { from: z.string(), to: z.string(), amount: z.number().positive() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ from, to, amount }, { taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 100 });
        const [fromBalance, toBalance] = [await balanceOf(from), await balanceOf(to)];
        const writes = await Promise.all([
          service.write({
            namespace: env.BANK_NAMESPACE,
            key: from,
            value: fromBalance - amount,
            delayMs: env.TRANSFER_DELAY_MS,
            mode: "async",
          }),
          service.write({
            namespace: env.BANK_NAMESPACE,
            key: to,
            value: toBalance + amount,
            delayMs: env.TRANSFER_DELAY_MS,
            mode: "async",
          }),
        ]);
        // The task ends when the service has applied both writes, as the service itself says.
        void (async () => {
          const ended = await Promise.all(writes.map((w) => service.operation(w.operation.handle, env.TRANSFER_DELAY_MS + 5_000)));
          const ok = ended.every((e) => e.operation.status === "completed");
          await taskStore.storeTaskResult(task.taskId, ok ? "completed" : "failed", {
            content: [
              { type: "text", text: ok ? `sent ${amount} from ${from} to ${to}` : "the transfer failed" },
              { type: "resource_link", uri: accountUri(from), name: from },
              { type: "resource_link", uri: accountUri(to), name: to },
            ],
            ...(ok ? {} : { isError: true }),
          });
        })();
        return { task };
      },
      async getTask(_args, { taskId, taskStore: store }) {
        return (await store.getTask(taskId))!;
      },
      async getTaskResult(_args, { taskId, taskStore: store }) {
        return (await store.getTaskResult(taskId)) as { content: [] };
      },
    },
  );

  return server;
}

/**
 * The bank over Streamable HTTP at /mcp on a free loopback port, one server per session, its tasks
 * shared. It answers POSTs with SSE streams (the SDK's default), or with JSON bodies when `json`.
 */
export async function serveBankOverHttp(env: BankConfig, { json = false } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const tasks = bankTasks();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = http.createServer((request, response) => {
    void (async () => {
      const session = request.headers["mcp-session-id"];
      let transport = typeof session === "string" ? sessions.get(session) : undefined;
      if (!transport && typeof session === "string") {
        response
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
        return;
      }
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId));
        await bankServer(env, tasks).connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response);
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
