import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";

// The failure it exists for, as a process: a pg client with no 'error' listener whose backend is
// terminated. Without the handler Node ends the process on the unheard 'error' event.
const CHILD = (survive: boolean) => `
import pg from "pg";
import { surviveConnectionLoss } from "./lib/db/connection-loss.ts";
${survive ? 'surviveConnectionLoss((line) => console.log("logged: " + line));' : ""}
const url = process.env.PG_URL;
const victim = new pg.Client({ connectionString: url });
await victim.connect();
const { rows } = await victim.query("select pg_backend_pid() as pid");
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query("select pg_terminate_backend($1)", [rows[0].pid]);
await admin.end();
await new Promise((resolve) => setTimeout(resolve, 1000));
console.log("alive");
${survive ? 'setTimeout(() => { throw new Error("an unrelated bug"); }, 0);' : ""}
`;

function runChild(survive: boolean) {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD(survive)], {
    env: { ...process.env, PG_URL: inject("embeddedAdminUrl") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe("surviveConnectionLoss", () => {
  it("keeps a process alive when an unheard client loses its connection, and still ends it on any other uncaught error", { timeout: 60_000 }, async () => {
    const [without, withHandler] = await Promise.all([runChild(false), runChild(true)]);
    expect(without.out).toContain("terminating connection due to administrator command");
    expect(without.out).not.toContain("alive");
    expect(without.code).not.toBe(0);

    expect(withHandler.out).toContain("logged: a database connection was lost with no listener (terminating connection due to administrator command)");
    expect(withHandler.out).toContain("alive");
    expect(withHandler.out).toContain("an unrelated bug");
    expect(withHandler.code).toBe(1);
  });
});
