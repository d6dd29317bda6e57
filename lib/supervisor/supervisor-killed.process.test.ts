import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../db/free-port";
import { readStackStatus, stackStatusFile } from "./stack-status";

// `npm start`'s supervisor (workers/start.ts) as a user runs it, with its own embedded PostgreSQL,
// delayed-write service and a replay worker, SIGKILLed as a container runtime does after its stop
// timeout: every process it started must end with it. (No web build here: the web app's child
// exits and is restarted meanwhile; its entry watches the supervisor the same way.)
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-supervisor-"));
// Enterable by the system user the embedded PostgreSQL runs as when the tests run as root.
chmodSync(dataDir, 0o755);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every live process started for this data folder: they all inherit BOUNDARY_LAB_DATA_DIR from the supervisor. */
function processesOfStack(): number[] {
  const marker = `BOUNDARY_LAB_DATA_DIR=${dataDir}\0`;
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").includes(marker);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** A process as `pid: command line`, for a failure's message. */
function commandOf(pid: number): string {
  try {
    return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").trim()}`;
  } catch {
    return `${pid}: gone`;
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

describe("npm start's supervisor SIGKILLed", () => {
  it("takes every child with it: the service frees its port, the worker and PostgreSQL stop", { timeout: 240_000 }, async () => {
    const port = await freePort();
    const supervisor = spawn(process.execPath, ["--import", "tsx", "workers/start.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: "",
        DELAYED_WRITE_URL: "",
        BOUNDARY_LAB_DATA_DIR: dataDir,
        PORT: String(port),
        BOUNDARY_LAB_URL: `http://127.0.0.1:${port}`,
        REPLAY_WORKERS: "1",
        WEB_PROCESSES: "1",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    for (const stream of [supervisor.stdout, supervisor.stderr]) stream.on("data", (data: Buffer) => output.push(data.toString()));
    const exited = new Promise((resolve) => supervisor.once("exit", resolve));
    try {
      const deadline = Date.now() + 180_000;
      const running = (name: string) =>
        readStackStatus(stackStatusFile(dataDir))?.children.find((c) => c.name === name)?.state === "running";
      while (!(running("delayed-write service") && running("replay worker 1"))) {
        if (supervisor.exitCode !== null) throw new Error(`the supervisor exited while starting:\n${output.join("")}`);
        if (Date.now() > deadline) throw new Error(`the stack did not start within 180 s:\n${output.join("").slice(-4000)}`);
        await sleep(200);
      }
      const status = readStackStatus(stackStatusFile(dataDir))!;
      const servicePort = Number(new URL(status.delayedWriteUrl).port);
      expect(await accepts(servicePort)).toBe(true);
      const started = processesOfStack().filter((pid) => pid !== supervisor.pid);
      // The service, the worker, PostgreSQL's process and the postmaster at least.
      expect(started.length).toBeGreaterThanOrEqual(4);

      supervisor.kill("SIGKILL");
      await exited;
      const gone = Date.now() + 40_000;
      while (processesOfStack().length > 0 && Date.now() < gone) await sleep(250);
      expect(processesOfStack().map(commandOf)).toEqual([]);
      expect(await accepts(servicePort)).toBe(false);
    } finally {
      if (supervisor.exitCode === null && supervisor.signalCode === null) supervisor.kill("SIGKILL");
      // Whatever this test left behind, found by its data folder: our own processes only.
      for (const pid of processesOfStack()) process.kill(pid, "SIGKILL");
    }
  });
});
