import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { DEFAULT_RESTART_POLICY, NO_CRASHES, decideRestart, type RestartPolicy } from "./restart-policy";
import { settlesWithin } from "./settles-within";
import type { ChildSpec } from "./stack-children";
import type { ChildStatus } from "./stack-status";

const PORT_PROBE_MS = 200;

export interface SupervisedChildOptions {
  log: (line: string) => void;
  /** Called after every change of the child's status. */
  onChange: () => void;
  policy?: RestartPolicy;
}

/**
 * One supervised process (the thin shell around restart-policy.ts): started, watched until ready,
 * restarted after an unexpected exit as the policy says, stopped with SIGTERM (then SIGKILL).
 * Each child runs in a process group of its own, so that a Ctrl-C in the terminal reaches only
 * the supervisor, which stops the children in order; and each stops by itself when the supervisor
 * is gone without stopping it (with-supervisor.ts).
 */
export class SupervisedChild {
  private process: ChildProcess | null = null;
  private startedAtMs = 0;
  private history = NO_CRASHES;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private current: ChildStatus;
  private readyWaiters: Array<() => void> = [];

  constructor(
    private readonly spec: ChildSpec,
    private readonly options: SupervisedChildOptions,
  ) {
    this.current = { name: spec.name, state: "starting", pid: null, restarts: 0, lastExit: null, nextStartAt: null };
  }

  status(): ChildStatus {
    return this.current;
  }

  /** Resolves once the child is running (ready), now or later. */
  running(): Promise<void> {
    if (this.current.state === "running") return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  start(): void {
    const child = spawn(process.execPath, this.spec.args, {
      env: { ...process.env, ...this.spec.env },
      // The IPC channel is never used for messages: it closes when this process ends, however it ends, and the child stops with it (with-supervisor.ts).
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      detached: true,
    });
    this.process = child;
    this.startedAtMs = Date.now();
    this.update({ pid: child.pid ?? null, nextStartAt: null });
    const ready = this.spec.ready;
    for (const [stream, print] of [
      [child.stdout!, console.log],
      [child.stderr!, console.error],
    ] as const) {
      createInterface({ input: stream }).on("line", (line) => {
        print(`[${this.spec.name}] ${line}`);
        if ("line" in ready && ready.line(line)) this.ready(child);
      });
    }
    if ("port" in ready) void this.probePort(child, ready.port, ready.host);
    child.once("error", (error) => this.options.log(`${this.spec.name}: ${error.message}`));
    child.once("exit", (code, signal) => this.exited(child, code, signal));
  }

  /** Stops the child: no more restarts, SIGTERM, SIGKILL after the spec's timeout. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    if (!(await settlesWithin(exited, this.spec.stopTimeoutMs))) {
      this.options.log(
        `${this.spec.name} (pid ${child.pid}) did not stop within ${this.spec.stopTimeoutMs / 1000} s of SIGTERM: killing it`,
      );
      child.kill("SIGKILL");
      await exited;
    }
  }

  private update(change: Partial<ChildStatus>): void {
    this.current = { ...this.current, ...change };
    this.options.onChange();
  }

  private ready(child: ChildProcess): void {
    if (child !== this.process || this.current.state === "running") return;
    this.update({ state: "running" });
    this.options.log(`${this.spec.name} running (pid ${child.pid})`);
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private async probePort(child: ChildProcess, port: number, host: string): Promise<void> {
    while (child === this.process && child.exitCode === null && child.signalCode === null) {
      const accepted = await new Promise<boolean>((resolve) => {
        const socket = connect(port, host);
        socket.once("connect", () => (socket.destroy(), resolve(true)));
        socket.once("error", () => resolve(false));
      });
      if (accepted) return this.ready(child);
      await new Promise((resolve) => setTimeout(resolve, PORT_PROBE_MS));
    }
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const exitAtMs = Date.now();
    const lastExit = { code, signal, at: new Date(exitAtMs).toISOString() };
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.stopping) {
      this.options.log(`${this.spec.name} (pid ${child.pid}) stopped (${how})`);
      return this.update({ pid: null, lastExit });
    }
    const policy = this.options.policy ?? DEFAULT_RESTART_POLICY;
    const decision = decideRestart(this.history, { startedAtMs: this.startedAtMs, exitAtMs }, policy);
    this.history = decision.history;
    const recent = `${decision.history.crashesAtMs.length} crash(es) in the last ${policy.crashWindowMs / 1000} s`;
    this.options.log(
      decision.state === "crashed"
        ? `${this.spec.name} (pid ${child.pid}) exited (${how}); ${recent}: reported as crashed, next attempt in ${decision.delayMs / 1000} s`
        : `${this.spec.name} (pid ${child.pid}) exited (${how}); restarting in ${decision.delayMs} ms (${recent})`,
    );
    this.update({ state: decision.state, pid: null, lastExit, nextStartAt: new Date(exitAtMs + decision.delayMs).toISOString() });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.update({ state: "restarting", restarts: this.current.restarts + 1 });
      this.start();
    }, decision.delayMs);
  }
}
