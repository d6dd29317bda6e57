import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";

// The failure it exists for, as a process: a pg client with no 'error' listener whose backend is
// terminated, or whose connection is reset (through a proxy in the child that resets its side, as a
// failover or a NAT that forgets the connection does). Without the handler Node ends the process on
// the unheard 'error' event.
type Loss = "terminate" | "reset";
const CHILD = (survive: boolean, loss: Loss) => `
import net from "node:net";
import pg from "pg";
import { surviveConnectionLoss } from "./lib/db/connection-loss.ts";
${survive ? 'surviveConnectionLoss((line) => console.log("logged: " + line));' : ""}
const url = new URL(process.env.PG_URL);
const admin = new pg.Client({ connectionString: url.toString() });
await admin.connect();
const accepted = [];
const proxy = net.createServer((socket) => {
  const upstream = net.connect(Number(url.port || 5432), url.hostname);
  socket.on("error", () => {}).pipe(upstream.on("error", () => {})).pipe(socket);
  accepted.push(socket);
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const viaProxy = new URL(url);
viaProxy.host = "127.0.0.1:" + proxy.address().port;
const victim = new pg.Client({ connectionString: ${loss === "reset" ? "viaProxy" : "url"}.toString() });
await victim.connect();
const { rows } = await victim.query("select pg_backend_pid() as pid");
${loss === "reset" ? "accepted[0].resetAndDestroy();" : 'await admin.query("select pg_terminate_backend($1)", [rows[0].pid]);'}
await admin.end();
proxy.close();
await new Promise((resolve) => setTimeout(resolve, 1000));
console.log("alive");
${survive ? 'setTimeout(() => { throw new Error("an unrelated bug"); }, 0);' : ""}
`;

function runChild(survive: boolean, loss: Loss) {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD(survive, loss)], {
    env: { ...process.env, PG_URL: inject("embeddedAdminUrl") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe("surviveConnectionLoss", () => {
  it(
    "keeps a process alive when an unheard client loses its connection, and still ends it on any other uncaught error",
    { timeout: 60_000 },
    async () => {
      const [without, withHandler] = await Promise.all([runChild(false, "terminate"), runChild(true, "terminate")]);
      expect(without.out).toContain("terminating connection due to administrator command");
      expect(without.out).not.toContain("alive");
      expect(without.code).not.toBe(0);

      expect(withHandler.out).toContain(
        "logged: a database connection was lost with no listener (terminating connection due to administrator command)",
      );
      expect(withHandler.out).toContain("alive");
      expect(withHandler.out).toContain("an unrelated bug");
      expect(withHandler.code).toBe(1);
    },
  );

  it(
    "keeps it alive when the connection is reset under the client (read ECONNRESET, then pg's Connection terminated unexpectedly)",
    { timeout: 60_000 },
    async () => {
      const [without, withHandler] = await Promise.all([runChild(false, "reset"), runChild(true, "reset")]);
      expect(without.out).toContain("read ECONNRESET");
      expect(without.out).not.toContain("alive");
      expect(without.code).not.toBe(0);

      expect(withHandler.out).toContain("logged: a database connection was lost with no listener (read ECONNRESET)");
      expect(withHandler.out).toContain("logged: a database connection was lost with no listener (Connection terminated unexpectedly)");
      expect(withHandler.out).toContain("alive");
      expect(withHandler.out).toContain("an unrelated bug");
      expect(withHandler.code).toBe(1);
    },
  );
});
