// `npm start` under faults, at process level: the supervisor (workers/start.ts) runs on its own port
// with its own data folder and embedded PostgreSQL, beside e2e/serve.ts's stack. A replay worker and
// then the delayed-write service are SIGKILLed; the web app must answer every request throughout,
// /api/health must name the dead child until a new one runs, and experiments must still complete
// exactly. Then one of the web app's two processes is SIGKILLed: the other must serve every new
// connection while a new one is forked. Then SIGTERM must stop everything in order. Needs `npx next build` first.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, request, test, type APIRequestContext } from "@playwright/test";
import { freePort } from "../lib/db/free-port";
import { experimentStatusSchema } from "../lib/experiments/progress";
import { replayConfigSchema, type ReplayConfigInput } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { replaySummarySchema } from "../lib/replay/rules/summary-schema";
import { SERVICE_NAME, WEB_NAME, replayWorkerName } from "../lib/supervisor/stack-children";
import { startSupervisedStack, type SupervisedStack } from "../lib/testing/supervised-stack";

test.describe.configure({ mode: "serial" });

const WORKER = replayWorkerName(1);
const POLL_MS = 100;

let dataDir: string;
let stack: SupervisedStack | undefined;
let api: APIRequestContext;

interface Answer {
  path: string;
  status: number | null;
  error?: string;
  body?: { status: string; degraded: string[] };
}

/** Asks for /api/health and /login, each every POLL_MS, until stopped, and keeps every answer (or failure to answer). */
function watchAnswers(baseUrl: string) {
  const answers: Answer[] = [];
  let watching = true;
  const poll = async (path: string) => {
    const client = await request.newContext({ baseURL: baseUrl });
    while (watching) {
      try {
        const response = await client.get(path, { timeout: 10_000 });
        answers.push({ path, status: response.status(), ...(path === "/api/health" ? { body: await response.json() } : {}) });
      } catch (error) {
        answers.push({ path, status: null, error: (error as Error).message });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    await client.dispose();
  };
  const done = Promise.all(["/api/health", "/login"].map(poll));
  const healthAnswers = () => answers.filter((a) => a.path === "/api/health");
  return {
    /** Resolves once both have answered (a first request can be slow: the route's code is loaded then). */
    async untilAnswering(): Promise<void> {
      await expect.poll(() => new Set(answers.map((a) => a.path)).size, { timeout: 60_000 }).toBe(2);
    },
    /** Resolves once health has named `child` as degraded and then answered ok again. */
    async untilDownAndBack(child: string): Promise<void> {
      await expect
        .poll(() => healthAnswers().some((a) => a.status === 503 && a.body?.degraded.includes(child)), { timeout: 60_000 })
        .toBe(true);
      await expect.poll(() => healthAnswers().at(-1)?.body?.status, { timeout: 60_000 }).toBe("ok");
    },
    async stop(): Promise<Answer[]> {
      watching = false;
      await done;
      return answers;
    },
  };
}

async function health(): Promise<{ status: string; degraded: string[] }> {
  return (await api.get("/api/health")).json();
}

async function experiment(id: string) {
  return experimentStatusSchema.parse(await (await api.get(`/api/v1/experiments/${id}`)).json());
}

/** Waits for the experiment to end and checks it ended completed with Table 2 exactly as its grid predicts. */
async function expectCompletedExactly(id: string, grid: ReplayConfigInput): Promise<void> {
  await expect.poll(async () => (await experiment(id)).state, { timeout: 120_000, intervals: [250] }).toBe("completed");
  const summary = replaySummarySchema.parse(await (await api.get(`/api/v1/experiments/${id}/summary`)).json());
  expect(table2Mismatches(summary, replayConfigSchema.parse(grid))).toEqual([]);
  expect(summary.checks.filter((c) => !c.passed)).toEqual([]);
}

/** Every request was answered, the pages with 200, and health said which child was down. */
function expectAnsweredThroughout(answers: Answer[], child: string): void {
  expect(answers.filter((a) => a.status === null)).toEqual([]);
  expect(answers.filter((a) => a.path === "/login" && a.status !== 200)).toEqual([]);
  const healthAnswers = answers.filter((a) => a.path === "/api/health");
  for (const answer of healthAnswers) expect([200, 503]).toContain(answer.status);
  expect(healthAnswers.some((a) => a.status === 503 && a.body?.status === "degraded" && a.body.degraded.includes(child))).toBe(true);
}

const execFileAsync = promisify(execFile);

/** `npm run user:create` and `npm run apikey:create` against the stack's database, as a user would. */
async function createApiKey(): Promise<string> {
  const env = { ...process.env, DATABASE_URL: "", BOUNDARY_LAB_DATA_DIR: dataDir };
  const cli = (...args: string[]) => execFileAsync(process.execPath, ["--import", "tsx", "workers/account-cli.ts", ...args], { env });
  await cli("user:create", "--email", "editor@supervisor.test", "--password", "supervised-start-1", "--role", "editor");
  return (await cli("apikey:create", "--email", "editor@supervisor.test")).stdout.trim();
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  expect(existsSync(".next/BUILD_ID"), "run `npx next build` first").toBe(true);
  dataDir = mkdtempSync(path.join(tmpdir(), "bl-supervisor-"));
  // The embedded PostgreSQL runs as the postgres user, which must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  stack = await startSupervisedStack({
    dataDir,
    port: await freePort(),
    env: { REPLAY_WORKERS: "1", WEB_PROCESSES: "2" },
    readyTimeoutMs: 180_000,
  });
  api = await request.newContext({ baseURL: stack.baseUrl, extraHTTPHeaders: { authorization: `Bearer ${await createApiKey()}` } });
});

test.afterAll(async () => {
  await api?.dispose();
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus && stack)
    await testInfo.attach("stack output", { body: stack.output.join("\n"), contentType: "text/plain" });
});

test("a SIGKILLed replay worker: the web app answers throughout, health names the worker until a new one runs, which completes the experiment", async () => {
  test.setTimeout(240_000);
  await expect.poll(async () => (await health()).status, { timeout: 30_000 }).toBe("ok");
  const watch = watchAnswers(stack!.baseUrl);
  await watch.untilAnswering();
  const grid = { delaysMs: [0, 25, 100, 250], schedules: 5, repetitions: 3 };
  const created = await api.post("/api/v1/experiments", { data: grid });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect.poll(async () => (await experiment(id)).progress.done, { timeout: 60_000, intervals: [50] }).toBeGreaterThan(0);

  const killed = stack!.child(WORKER).pid!;
  process.kill(killed, "SIGKILL");
  // The kill landed mid-experiment: the new worker has jobs of the dead one to take over.
  const atKill = await experiment(id);
  expect(atKill.progress.done).toBeLessThan(atKill.progress.total);

  await watch.untilDownAndBack(WORKER);
  expect(stack!.child(WORKER)).toMatchObject({ state: "running", restarts: 1, lastExit: { signal: "SIGKILL" } });
  expect(stack!.child(WORKER).pid).not.toBe(killed);
  await expectCompletedExactly(id, grid);
  expectAnsweredThroughout(await watch.stop(), WORKER);
  expect(stack!.output.some((line) => line.includes(`${WORKER} (pid ${killed}) exited (signal SIGKILL); restarting in`))).toBe(true);
});

test("a SIGKILLed delayed-write service: the web app answers throughout, health names it until it is back on the same URL, and experiments run on it", async () => {
  test.setTimeout(240_000);
  const before = stack!.status();
  const killed = stack!.child(SERVICE_NAME).pid!;
  const watch = watchAnswers(stack!.baseUrl);
  await watch.untilAnswering();
  process.kill(killed, "SIGKILL");
  await watch.untilDownAndBack(SERVICE_NAME);
  expect(stack!.child(SERVICE_NAME)).toMatchObject({ state: "running", restarts: 1, lastExit: { signal: "SIGKILL" } });
  expect(stack!.child(SERVICE_NAME).pid).not.toBe(killed);
  expect(stack!.status().delayedWriteUrl).toBe(before.delayedWriteUrl);
  expectAnsweredThroughout(await watch.stop(), SERVICE_NAME);

  // Nonzero delays only: the cancellations re-read after their due time need the new service's clock, not the old one's.
  const grid = { delaysMs: [25, 100], schedules: 2, repetitions: 2 };
  const created = await api.post("/api/v1/experiments", { data: grid });
  expect(created.status()).toBe(201);
  await expectCompletedExactly(((await created.json()) as { id: string }).id, grid);
});

/** GET `path` on a connection of its own (as a client does after its old one is reset): the status, or null for no answer. */
function getOnNewConnection(baseUrl: string, pathname: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = httpGet(new URL(pathname, baseUrl), { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? null));
    });
    req.on("error", () => resolve(null));
    req.on("timeout", () => req.destroy());
  });
}

test("a SIGKILLed web process: the other answers, its primary forks a new one, and the web app never goes down", async () => {
  test.setTimeout(120_000);
  const primary = stack!.child(WEB_NAME).pid!;
  const processes = async () => (await execFileAsync("pgrep", ["-P", String(primary)])).stdout.trim().split("\n").map(Number);
  const before = await processes();
  expect(before).toHaveLength(2);
  process.kill(before[0]!, "SIGKILL");
  // A connection the primary handed to the killed process before it saw the exit is reset (a client
  // retries it on a new one); once it has seen it, every new connection goes to the process still running.
  await expect
    .poll(() => stack!.output.some((line) => line.includes(`(pid ${before[0]}) exited (SIGKILL): restarting, again in 250 ms`)), {
      timeout: 10_000,
    })
    .toBe(true);
  const answers = await Promise.all(Array.from({ length: 20 }, () => getOnNewConnection(stack!.baseUrl, "/login")));
  expect(answers).toEqual(Array.from({ length: 20 }, () => 200));
  await expect.poll(async () => (await processes()).filter((pid) => !before.includes(pid)).length, { timeout: 30_000 }).toBe(1);
  expect(await processes()).toHaveLength(2);
  expect(stack!.child(WEB_NAME)).toMatchObject({ state: "running", restarts: 0, pid: primary });
  expect(await getOnNewConnection(stack!.baseUrl, "/login")).toBe(200);
});

test("SIGTERM stops the web app, the worker, the service and PostgreSQL in order, and exits 0", async () => {
  test.setTimeout(120_000);
  const { pid } = stack!.status();
  expect(await stack!.stop()).toEqual({ code: 0, signal: null });
  expect(pid).toBe(stack!.process.pid);
  const stopped = stack!.output
    .filter((line) => / stopped \(|^boundary-lab: stopped$/.test(line))
    .map((line) => line.replace(/ \(pid \d+\).*/, ""));
  expect(stopped).toEqual(["boundary-lab: web app", `boundary-lab: ${WORKER}`, `boundary-lab: ${SERVICE_NAME}`, "boundary-lab: stopped"]);
  expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  expect(existsSync(path.join(dataDir, "stack.json"))).toBe(false);
  stack = undefined;
});
