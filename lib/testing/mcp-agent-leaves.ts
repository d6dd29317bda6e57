// An agent process that leaves mid-task, as real agents do: it reaches the bank through the recorder
// (the command line after `--`), starts a transfer as a task, scores its run at once (no wait for the
// recorder), prints the score's answer on stdout as one JSON line and exits without closing anything,
// so that the recorder's stdin, stdout and stderr (pipes of this process) all close under it.
// `node --import tsx lib/testing/mcp-agent-leaves.ts SCORE_URL -- COMMAND ARGS...`; BOUNDARY_LAB_API_KEY in the environment.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [scoreUrl, separator, command, ...args] = process.argv.slice(2);
if (!scoreUrl || separator !== "--" || !command) throw new Error("usage: mcp-agent-leaves.ts SCORE_URL -- COMMAND ARGS...");
const transport = new StdioClientTransport({
  command,
  args,
  env: { ...getDefaultEnvironment(), ...(process.env as Record<string, string>) },
  stderr: "pipe",
});
const agent = new Client({ name: "leaving agent", version: "1.0.0" });
await agent.connect(transport);
await agent.callTool({ name: "get_balance", arguments: { account: "alice" } });
const stream = agent.experimental.tasks.callToolStream(
  { name: "send_money", arguments: { from: "alice", to: "bob", amount: 5 } },
  CallToolResultSchema,
  { task: { ttl: 60_000 } },
);
await stream.next(); // the task is created: the transfer is working
const scored = await fetch(scoreUrl, {
  method: "POST",
  headers: { authorization: `Bearer ${process.env.BOUNDARY_LAB_API_KEY}`, "content-type": "application/json" },
  body: JSON.stringify({ endpointLabel: "success" }),
});
process.stdout.write(`${JSON.stringify({ status: scored.status, answer: await scored.json() })}\n`, () => process.exit(0));
