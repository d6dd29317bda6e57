import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { readStackStatus, stackStatusFile, type ChildStatus, type StackStatus } from "../supervisor/stack-status";

/**
 * For the process-level tests and bench:chaos: `npm start`'s supervisor (workers/start.ts) run as a
 * child with its own data folder and port, as a user would run it (a production build must exist).
 */
export interface SupervisedStack {
  baseUrl: string;
  process: ChildProcess;
  /** Everything the stack printed, line by line. */
  output: string[];
  /** The status file as it is now. */
  status(): StackStatus;
  child(name: string): ChildStatus;
  /** Resolves once the supervisor has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (what Ctrl-C does), then the supervisor's exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const POLL_MS = 100;

/** Starts the supervisor and resolves once every child it supervises is running. */
export async function startSupervisedStack(options: {
  dataDir: string;
  port: number;
  env: Record<string, string>;
  readyTimeoutMs: number;
  print?: (line: string) => void;
}): Promise<SupervisedStack> {
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "workers/start.ts"], {
    // Empty means unset (lib/env.ts): the stack runs its own embedded PostgreSQL and service unless the caller says otherwise.
    env: {
      ...process.env,
      DATABASE_URL: "",
      DELAYED_WRITE_URL: "",
      BOUNDARY_LAB_DATA_DIR: options.dataDir,
      PORT: String(options.port),
      BOUNDARY_LAB_URL: baseUrl,
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      output.push(line);
      options.print?.(line);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const file = stackStatusFile(options.dataDir);
  const status = () => {
    const current = readStackStatus(file);
    if (!current) throw new Error(`no status file at ${file}`);
    return current;
  };
  const stack: SupervisedStack = {
    baseUrl,
    process: child,
    output,
    status,
    child: (name) => {
      const found = status().children.find((c) => c.name === name);
      if (!found) throw new Error(`the stack supervises no "${name}"`);
      return found;
    },
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
  const deadline = Date.now() + options.readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the stack exited while starting:\n${output.slice(-30).join("\n")}`);
    const current = readStackStatus(file);
    if (current && current.children.length > 0 && current.children.every((c) => c.state === "running")) return stack;
    if (Date.now() > deadline) {
      await stack.stop();
      throw new Error(`the stack was not running within ${options.readyTimeoutMs / 1000} s:\n${output.slice(-30).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
