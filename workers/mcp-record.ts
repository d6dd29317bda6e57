// `npm run mcp:record -- --evaluation ID --run EXTERNAL_ID [--task TASK] [--api URL] [--spool DIR]
// [--poll-bound-seconds 600] -- COMMAND ARGS...`: runs the MCP server COMMAND over stdio behind the
// recording proxy (lib/recorder/). Point the agent's MCP client at this command instead of the
// server's: it talks to the proxy as it would to the server. Auth: BOUNDARY_LAB_API_KEY; the app at
// --api, else BOUNDARY_LAB_URL (default http://localhost:3000). stdout is the MCP channel: every line
// of the recorder's own goes to stderr. Exit codes: 0 done (events sent, or kept on disk for the next
// recorder of the run), 2 invalid flags. Built into one file, dist/mcp-record.mjs
// (scripts/build-recorder.mjs), it starts with plain node in well under a second: `npm run mcp:record`
// and `npx boundary-lab-mcp-record` run that file.
//
// An MCP client ends a stdio server by closing its stdin, then SIGTERM and SIGKILL two seconds apart,
// but the tasks the agent left working must still be followed: so this process only passes stdio on,
// and the recorder runs as a detached child (its own process group) that outlives it by as long as
// the polling bound.
//
// Streamable HTTP mode: `… --listen PORT --upstream URL [--host 127.0.0.1]` (no command): serves the
// upstream endpoint's path on PORT (0: any free port; the URL is printed on stderr) until SIGINT or
// SIGTERM, then follows the tasks still working within the bound and sends what is left; a second
// signal exits at once (unsent events stay on disk for the next recorder of the run).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { boundaryLabSink } from "../lib/recorder/boundary-lab-sink";
import { recorderEnvSchema, recorderFlagsSchema, spoolFileOf } from "../lib/recorder/flags";
import { McpObserver } from "../lib/recorder/observer";
import { EventOutbox } from "../lib/recorder/outbox";
import { RecorderPresence } from "../lib/recorder/presence";
import { startHttpRecorder } from "../lib/recorder/http-proxy";
import { runStdioRecorder } from "../lib/recorder/stdio-proxy";

// The agent owns stderr: once it has gone, writing there fails (EPIPE), and the recorder, still following
// tasks, must not die of it. Its lines go on to a log beside the spool (named on stderr at the start).
let stderrOpen = true;
process.stderr.on("error", () => (stderrOpen = false));
process.stdout.on("error", () => undefined);
let logFile: string | null = null;
const log = (line: string) => {
  const text = `mcp:record: ${line}\n`;
  if (stderrOpen) process.stderr.write(text);
  try {
    if (logFile) appendFileSync(logFile, `${new Date().toISOString()} ${text}`);
  } catch {
    logFile = null; // a log that cannot be written is not a reason to stop recording
  }
};
const USAGE = [
  "usage: npm run mcp:record -- --evaluation ID --run EXTERNAL_ID [--task TASK] [--api URL] [--spool DIR] -- COMMAND ARGS...",
  "   or: npm run mcp:record -- --evaluation ID --run EXTERNAL_ID [--task TASK] [--api URL] [--spool DIR] --listen PORT --upstream URL [--host HOST]",
].join("\n");

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
  const [command, ...args] = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: split === -1 ? argv : argv.slice(0, split),
      options: Object.fromEntries(
        ["evaluation", "run", "task", "api", "spool", "poll-bound-seconds", "listen", "upstream", "host"].map((name) => [
          name,
          { type: "string" as const },
        ]),
      ),
      strict: true,
    }));
  } catch (error) {
    refuse((error as Error).message);
  }
  const flags = recorderFlagsSchema.safeParse(values);
  if (!flags.success) refuse(flags.error.issues[0]!.message);
  const httpMode = flags.data.upstream !== undefined;
  if (httpMode && command !== undefined) refuse("the Streamable HTTP mode (--listen, --upstream) takes no command after --");
  if (!httpMode && command === undefined) refuse("name the MCP server's command after --, or use --listen PORT --upstream URL");
  const env = recorderEnvSchema.safeParse(process.env);
  if (!env.success) refuse(env.error.issues[0]!.message);
  if (!httpMode && process.env[DETACHED] !== "1") return passStdioTo(process.argv.slice(1));
  const { evaluation, run, task, api, spool } = flags.data;
  // One id per recorder process: its effect ids and its heartbeats never collide with another recorder's of the run.
  const recorderId = `rec-${randomBytes(4).toString("hex")}`;
  const spoolFile = spoolFileOf({ spool, evaluation, run });
  mkdirSync(path.dirname(spoolFile), { recursive: true });
  logFile = `${spoolFile}.${recorderId}.log`;
  log(`recorder ${recorderId} of run ${run}; its log: ${logFile}`);
  const sink = boundaryLabSink({
    recorderId,
    kind: httpMode ? "mcp http" : "mcp stdio",
    api: api ?? env.data.BOUNDARY_LAB_URL,
    apiKey: env.data.BOUNDARY_LAB_API_KEY,
    evaluationId: evaluation,
    externalId: run,
    taskId: task ?? run,
    startedAt: new Date().toISOString(),
    log,
  });
  const outbox = new EventOutbox(spoolFile, (events) => sink.deliver(events), log);
  const presence = new RecorderPresence(sink, outbox, log);
  outbox.onDelivered = () => void presence.beat();
  const recording = { outbox, sink, presence, pollBoundMs: flags.data["poll-bound-seconds"] * 1000, log };
  if (!httpMode) {
    await runStdioRecorder({ ...recording, upstream: { command: command!, args }, observer: new McpObserver(`${recorderId}-`) });
    return;
  }
  const recorder = await startHttpRecorder({
    ...recording,
    idPrefix: `${recorderId}-`,
    upstream: new URL(flags.data.upstream!),
    listen: { port: flags.data.listen!, host: flags.data.host },
  });
  log(`listening on ${recorder.url} (forwarding to ${flags.data.upstream}); point the agent's MCP client there`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(0);
      stopping = true;
      log(`${signal}: stopping (a second signal exits at once; unsent events stay on disk)`);
      resolve();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  await recorder.stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(error instanceof z.ZodError ? error.issues[0]!.message : ((error as Error).stack ?? String(error)));
    process.exit(1);
  },
);
