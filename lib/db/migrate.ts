import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Logger, runMigrations } from "graphile-worker";

const run = promisify(execFile);
const PRISMA_CLI = path.resolve("node_modules/prisma/build/index.js");

/**
 * Brings the database at `url` to the latest migration with the Prisma CLI, then installs the
 * job queue's schema.
 * `migrate status` exits fast, while `migrate deploy` lingers ~10 s after its work is done
 * (a timer in the wasm schema engine, docs/stack.md): deploy runs only when something is
 * pending, and is ended once it has printed that every migration was applied.
 */
export async function ensureMigrated(url: string, log: (line: string) => void = () => {}): Promise<void> {
  await ensurePrismaMigrated(url, log);
  // The job queue's own schema (graphile_worker), idempotent and fast when current.
  await runMigrations({ connectionString: url, logger: quietLogger });
}

const quietLogger = new Logger(() => () => {});

async function ensurePrismaMigrated(url: string, log: (line: string) => void): Promise<void> {
  const env = { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
  try {
    await run(process.execPath, [PRISMA_CLI, "migrate", "status"], { env });
    return; // exit 0: schema up to date
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ""}${(error as { stderr?: string }).stderr ?? ""}`;
    if (!/not yet been applied|No migration found in _prisma_migrations/i.test(output)) {
      throw new Error(`prisma migrate status failed:\n${output}`);
    }
  }
  log("applying database migrations");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [PRISMA_CLI, "migrate", "deploy"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let applied = false;
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (!applied && /All migrations have been successfully applied|No pending migrations to apply/.test(output)) {
        applied = true;
        child.kill("SIGTERM");
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => {
      if (applied || code === 0) resolve();
      else reject(new Error(`prisma migrate deploy failed (exit ${code}):\n${output}`));
    });
  });
}
