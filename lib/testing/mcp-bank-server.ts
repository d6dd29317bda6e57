// The tests' own MCP server over stdio (issue 23 §4): a bank whose accounts live in the delayed-write
// service (DELAYED_WRITE_URL, namespace BANK_NAMESPACE). `get_balance` is read-only; `send_money` is
// task-based (MCP 2025-11-25 tasks): it is acknowledged with a task at once, and the delayed-write
// service applies the new balances TRANSFER_DELAY_MS later, so the task says `working` until then and
// its result links the accounts it wrote. Run: `npx tsx lib/testing/mcp-bank-server.ts`.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { z } from "zod";
import { DelayedWriteClient } from "../delayed-write/client";

const env = z
  .object({
    DELAYED_WRITE_URL: z.url(),
    BANK_NAMESPACE: z.string().min(1).default("bank"),
    TRANSFER_DELAY_MS: z.coerce.number().int().min(0).default(1_000),
  })
  .parse(process.env);
const service = new DelayedWriteClient(env.DELAYED_WRITE_URL);
const accountUri = (account: string) => `bank://accounts/${account}`;

async function balanceOf(account: string): Promise<number> {
  const { entry } = await service.read(env.BANK_NAMESPACE, account);
  return typeof entry?.value === "number" ? entry.value : 100;
}

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: "bank", version: "1.0.0" },
  { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore, taskMessageQueue: new InMemoryTaskMessageQueue() },
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
        service.write({ namespace: env.BANK_NAMESPACE, key: to, value: toBalance + amount, delayMs: env.TRANSFER_DELAY_MS, mode: "async" }),
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

await server.connect(new StdioServerTransport());
