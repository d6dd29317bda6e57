// `npm run mcp:record -- --evaluation ID --run EXTERNAL_ID [--task TASK] [--api URL] [--spool DIR]
// [--poll-bound-seconds 600] -- COMMAND ARGS...`: runs the MCP server COMMAND over stdio behind the
// recording proxy (lib/recorder/). Point the agent's MCP client at this command instead of the
// server's: it talks to the proxy as it would to the server. Auth: BOUNDARY_LAB_API_KEY; the app at
// --api, else BOUNDARY_LAB_URL (default http://localhost:3000). stdout is the MCP channel: every line
// of the recorder's own goes to stderr. Exit codes: 0 done (events sent, or kept on disk for the next
// recorder of the run), 2 invalid flags.
//
// An MCP client ends a stdio server by closing its stdin, then SIGTERM and SIGKILL two seconds apart,
// but the tasks the agent left working must still be followed: so this process only passes stdio on,
// and the recorder runs as a detached child (its own process group) that outlives it by as long as
// the polling bound.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { z } from "zod";
import { boundaryLabSink } from "../lib/recorder/boundary-lab-sink";
import { recorderEnvSchema, recorderFlagsSchema, spoolFileOf } from "../lib/recorder/flags";
import { McpObserver } from "../lib/recorder/observer";
import { EventOutbox } from "../lib/recorder/outbox";
import { runStdioRecorder } from "../lib/recorder/stdio-proxy";

const log = (line: string) => process.stderr.write(`mcp:record: ${line}\n`);
const USAGE = "usage: npm run mcp:record -- --evaluation ID --run EXTERNAL_ID [--task TASK] [--api URL] [--spool DIR] -- COMMAND ARGS...";

const DETACHED = "BOUNDARY_LAB_RECORDER_DETACHED";

/** Starts the recorder as a detached child and passes the agent's stdio to it until the agent is done. */
function passStdioTo(argv: string[]): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, ...argv], {
    detached: true,
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, [DETACHED]: "1" },
  });
  process.stdin.pipe(child.stdin!);
  child.stdout!.pipe(process.stdout);
  return new Promise((resolve) => {
    // The recorder closes its stdout once the agent has gone; it goes on following tasks on its own.
    child.stdout!.on("end", () => resolve());
    child.on("exit", () => resolve());
  });
}

function refuse(message: string): never {
  log(`${message}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const split = argv.indexOf("--");
  if (split === -1 || split === argv.length - 1) refuse("name the MCP server's command after --");
  const [command, ...args] = argv.slice(split + 1);
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv.slice(0, split),
      options: Object.fromEntries(
        ["evaluation", "run", "task", "api", "spool", "poll-bound-seconds"].map((name) => [name, { type: "string" as const }]),
      ),
      strict: true,
    }));
  } catch (error) {
    refuse((error as Error).message);
  }
  const flags = recorderFlagsSchema.safeParse(values);
  if (!flags.success) refuse(flags.error.issues[0]!.message);
  const env = recorderEnvSchema.safeParse(process.env);
  if (!env.success) refuse(env.error.issues[0]!.message);
  if (process.env[DETACHED] !== "1") return passStdioTo(process.argv.slice(1));
  const { evaluation, run, task, api, spool } = flags.data;
  const sink = boundaryLabSink({
    api: api ?? env.data.BOUNDARY_LAB_URL,
    apiKey: env.data.BOUNDARY_LAB_API_KEY,
    evaluationId: evaluation,
    externalId: run,
    taskId: task ?? run,
    startedAt: new Date().toISOString(),
    log,
  });
  const outbox = new EventOutbox(spoolFileOf({ spool, evaluation, run }), (events) => sink.deliver(events), log);
  await runStdioRecorder({
    upstream: { command: command!, args },
    observer: new McpObserver(),
    outbox,
    sink,
    pollBoundMs: flags.data["poll-bound-seconds"] * 1000,
    log,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(error instanceof z.ZodError ? error.issues[0]!.message : ((error as Error).stack ?? String(error)));
    process.exit(1);
  },
);
