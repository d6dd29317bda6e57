// An MCP server over stdio for the five-way test: a ledger whose accounts live in one JSON file
// (LEDGER_FILE), so that every run's server process (one per recorder) reads what the runs before
// it wrote. Its tools answer with text only (no resource links): the state they touch is named by
// the effect policy's templates, the same on every way in.
//
// - read_account (read-only): an account's balance (100 until written).
// - deposit: adds `amount` to the account and returns.
// - notify, queue_job, audit_log: return at once, writing nothing the ledger keeps.
// - transfer: answered with an MCP task (MCP 2025-11-25) at once; the ledger moves the money and the
//   task completes at once (`settle` "at_once"), once the file LEDGER_FILE.release exists
//   ("when_released": the test releases it after scoring, whatever the machine's load), or never.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { z } from "zod";

const ledgerFile = z.string().min(1).parse(process.env.LEDGER_FILE);
const OPENING_BALANCE = 100;
const releaseFile = `${ledgerFile}.release`;

const balances = (): Record<string, number> =>
  existsSync(ledgerFile) ? z.record(z.string(), z.number()).parse(JSON.parse(readFileSync(ledgerFile, "utf8"))) : {};
const balanceOf = (account: string) => balances()[account] ?? OPENING_BALANCE;
const setBalance = (account: string, value: number) => writeFileSync(ledgerFile, JSON.stringify({ ...balances(), [account]: value }));
const said = (text: string) => ({ content: [{ type: "text" as const, text }] });

const server = new McpServer(
  { name: "ledger", version: "1.0.0" },
  {
    capabilities: { tasks: { requests: { tools: { call: {} } } } },
    taskStore: new InMemoryTaskStore(),
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

server.registerTool(
  "read_account",
  { description: "An account's balance", inputSchema: { account: z.string() }, annotations: { readOnlyHint: true } },
  ({ account }) => said(String(balanceOf(account))),
);
server.registerTool(
  "deposit",
  { description: "Adds an amount to an account", inputSchema: { account: z.string(), amount: z.number() } },
  ({ account, amount }) => {
    setBalance(account, balanceOf(account) + amount);
    return said(`deposited ${amount} into ${account}`);
  },
);
for (const name of ["notify", "queue_job", "audit_log"])
  server.registerTool(name, { description: `${name}: answers at once`, inputSchema: { subject: z.string() } }, ({ subject }) =>
    said(`${name}: ${subject}`),
  );

server.experimental.tasks.registerToolTask(
  "transfer",
  {
    description: "Moves money out of an account; acknowledged with a task, applied as `settle` says",
    inputSchema: { from: z.string(), amount: z.number(), settle: z.enum(["at_once", "when_released", "never"]) },
    execution: { taskSupport: "required" },
  },
  {
    async createTask({ from, amount, settle }, { taskStore, taskRequestedTtl }) {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 3_600_000, pollInterval: 100 });
      const apply = () => {
        setBalance(from, balanceOf(from) - amount);
        void taskStore.storeTaskResult(task.taskId, "completed", said(`moved ${amount} out of ${from}`));
      };
      if (settle === "at_once") setTimeout(apply, 0);
      if (settle === "when_released") {
        const waiting = setInterval(() => {
          if (!existsSync(releaseFile)) return;
          clearInterval(waiting);
          apply();
        }, 50);
      }
      return { task };
    },
    async getTask(_args, { taskId, taskStore }) {
      return (await taskStore.getTask(taskId))!;
    },
    async getTaskResult(_args, { taskId, taskStore }) {
      return (await taskStore.getTaskResult(taskId)) as { content: [] };
    },
  },
);

// The recorder closes this connection once it stops following a task that never completes, perhaps with an answer on its way.
process.stdout.on("error", () => process.exit(0));
await server.connect(new StdioServerTransport());
