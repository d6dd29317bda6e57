// An MCP server over stdio that misbehaves on command, for the recorder's fault test: its tools
// `echo` (answers at once), `wait` (answers after `ms`), `garbage` (prints a line that is not
// JSON-RPC on stdout and never answers), `huge` (answers with a text of `megabytes` MiB in one line)
// and `crash` (exits the process with `code` while the call is in flight).
// Run: `node --import tsx lib/testing/mcp-faulty-server.ts`.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "faulty", version: "1.0.0" });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

server.registerTool("echo", { inputSchema: { says: z.string() } }, ({ says }) => text(says));
server.registerTool("wait", { inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return text(`waited ${ms} ms`);
});
server.registerTool("garbage", { inputSchema: { line: z.string() } }, ({ line }) => {
  process.stdout.write(`${line}\n`);
  return new Promise<never>(() => undefined);
});
server.registerTool("huge", { inputSchema: { megabytes: z.number().int().min(1) } }, ({ megabytes }) =>
  text("x".repeat(megabytes * 2 ** 20)),
);
server.registerTool("crash", { inputSchema: { code: z.number().int().min(0).max(255) } }, ({ code }) => process.exit(code));

await server.connect(new StdioServerTransport());
