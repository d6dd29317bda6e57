// `npm run bench:recorder-start [-- --runs N]`: how long the MCP recorder takes to start. Each run starts
// the built recorder (dist/mcp-record.mjs, with plain node) in front of the tests' bank server (bundled
// to a temp file with esbuild and started directly with node as well), sends `initialize` on its stdin
// and times the answer's arrival: the figure an agent with a connect timeout sees. The recorder
// registers with a stand-in Boundary Lab on a loopback port (answering the run's open and the
// heartbeats at once) before it passes the message on, as it does with a real instance. The same is
// timed against the bank server alone; N runs each (default 7), min/median/max printed with the load,
// never asserted.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const runs = Number(values.runs);
const folder = mkdtempSync(path.join(tmpdir(), "bl-recorder-start-"));
const bank = path.join(folder, "mcp-bank-server.mjs");
await build({
  entryPoints: ["lib/testing/mcp-bank-server.ts"],
  outfile: bank,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
});

const lab = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    const opening = request.method === "POST" && /\/live-runs$/.test(request.url ?? "");
    response.writeHead(opening ? 201 : 200, { "content-type": "application/json" });
    response.end(opening ? JSON.stringify({ externalId: "bench", created: true, state: "open" }) : "{}");
  });
});
await new Promise<void>((resolve) => lab.listen(0, "127.0.0.1", resolve));
const api = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;

const initialize = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
})}\n`;

/** Milliseconds from spawning `args` to the first line on its stdout (the answer to initialize). */
async function timeToInitialize(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, BOUNDARY_LAB_API_KEY: "bench", DELAYED_WRITE_URL: "http://127.0.0.1:9", BANK_NAMESPACE: "bench" },
  });
  child.stdin.write(initialize);
  const elapsed = await new Promise<number>((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("\n")) resolve(performance.now() - started);
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}) before answering initialize`)));
  });
  const exited = new Promise((resolve) => child.once("close", resolve));
  child.stdin.end();
  await exited;
  return elapsed;
}

const figures = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (value: number) => Math.round(value);
  return { min: ms(sorted[0]!), median: ms(sorted[Math.floor(sorted.length / 2)]!), max: ms(sorted.at(-1)!) };
};

const recorder = ["dist/mcp-record.mjs", "--evaluation", randomUUID(), "--run", "bench", "--api", api, "--spool", folder, "--"];
const throughRecorder: number[] = [];
const serverAlone: number[] = [];
for (let run = 0; run < runs; run++) {
  serverAlone.push(await timeToInitialize([bank]));
  throughRecorder.push(await timeToInitialize([...recorder, process.execPath, bank]));
}
lab.close();
const [one, five, fifteen] = loadavg().map((value) => value.toFixed(2));
console.log(
  JSON.stringify({
    runs,
    throughRecorderMs: figures(throughRecorder),
    serverAloneMs: figures(serverAlone),
    target: "under 1,000 ms through the recorder",
    load: `${one} ${five} ${fifteen}`,
  }),
);
