import { afterEach, describe, expect, it } from "vitest";
import type { RestartPolicy } from "./restart-policy";
import type { ChildSpec } from "./stack-children";
import type { ChildStatus } from "./stack-status";
import { SupervisedChild } from "./supervised-child";

// Real child processes (node -e), so that exits, signals and restarts are the operating system's.
const READY_THEN_WAIT = "console.log('ready'); setInterval(() => {}, 1000)";
const quickPolicy: RestartPolicy = { initialBackoffMs: 10, crashLimit: 3, crashWindowMs: 60_000, crashedPauseMs: 3_600_000 };

const started: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop()));
});

function supervise(script: string, options: { policy?: RestartPolicy; stopTimeoutMs?: number } = {}) {
  const spec: ChildSpec = {
    name: "test child",
    args: ["-e", script],
    env: {},
    ready: { line: (line) => line === "ready" },
    stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
  };
  const watchers: Array<() => void> = [];
  const log: string[] = [];
  const child = new SupervisedChild(spec, {
    log: (line) => log.push(line),
    onChange: () => watchers.forEach((w) => w()),
    policy: options.policy ?? quickPolicy,
  });
  started.push(child);
  /** Resolves with the first status that satisfies the predicate, now or after a change. */
  const until = (predicate: (status: ChildStatus) => boolean) =>
    new Promise<ChildStatus>((resolve) => {
      const check = () => predicate(child.status()) && resolve(child.status());
      watchers.push(check);
      check();
    });
  return { child, until, log };
}

describe("SupervisedChild", () => {
  it("is running once the child says it is ready", async () => {
    const { child, until } = supervise(READY_THEN_WAIT);
    expect(child.status()).toMatchObject({ name: "test child", state: "starting", pid: null, restarts: 0 });
    child.start();
    await child.running();
    expect(await until((s) => s.state === "running")).toMatchObject({ restarts: 0, lastExit: null });
    expect(child.status().pid).toBeGreaterThan(0);
  });

  it("restarts a killed child, says why, and is running again with a new process", async () => {
    const { child, until, log } = supervise(READY_THEN_WAIT);
    child.start();
    await child.running();
    const firstPid = child.status().pid!;
    process.kill(firstPid, "SIGKILL");
    const restarting = await until((s) => s.state === "restarting");
    expect(restarting).toMatchObject({ pid: null, lastExit: { code: null, signal: "SIGKILL" } });
    expect(restarting.nextStartAt).not.toBeNull();
    const back = await until((s) => s.state === "running");
    expect(back.pid).not.toBe(firstPid);
    expect(back.restarts).toBe(1);
    expect(log.some((line) => line.includes(`(pid ${firstPid}) exited (signal SIGKILL); restarting in 10 ms`))).toBe(true);
  });

  it("reports a child that keeps crashing as crashed and leaves it down instead of restarting it in a loop", async () => {
    const { child, until, log } = supervise("process.exit(3)");
    child.start();
    const crashed = await until((s) => s.state === "crashed");
    expect(crashed).toMatchObject({ pid: null, restarts: quickPolicy.crashLimit - 1, lastExit: { code: 3, signal: null } });
    expect(Date.parse(crashed.nextStartAt!) - Date.parse(crashed.lastExit!.at)).toBe(quickPolicy.crashedPauseMs);
    expect(log.at(-1)).toMatch(/exited \(code 3\); 3 crash\(es\) in the last 60 s: reported as crashed, next attempt in 3600 s/);
  });

  it("stops a child with SIGTERM, kills one that ignores it after the timeout, and restarts neither", async () => {
    const polite = supervise(READY_THEN_WAIT);
    polite.child.start();
    await polite.child.running();
    await polite.child.stop();
    expect(polite.child.status()).toMatchObject({ state: "running", pid: null, lastExit: { signal: "SIGTERM" }, restarts: 0 });

    const stubborn = supervise("process.on('SIGTERM', () => {}); " + READY_THEN_WAIT, { stopTimeoutMs: 200 });
    stubborn.child.start();
    await stubborn.child.running();
    await stubborn.child.stop();
    expect(stubborn.child.status()).toMatchObject({ pid: null, lastExit: { signal: "SIGKILL" }, restarts: 0 });
    expect(stubborn.log.some((line) => line.includes("did not stop within 0.2 s of SIGTERM: killing it"))).toBe(true);
  });
});
