// The tests' bank (mcp-bank.ts) as an MCP server over stdio, configured by its environment:
// DELAYED_WRITE_URL, BANK_NAMESPACE, TRANSFER_DELAY_MS. Run: `npx tsx lib/testing/mcp-bank-server.ts`.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { bankConfigSchema, bankServer, bankTasks } from "./mcp-bank";

await bankServer(bankConfigSchema.parse(process.env), bankTasks()).connect(new StdioServerTransport());
