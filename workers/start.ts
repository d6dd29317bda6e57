// `npm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, the delayed-write
// service (unless DELAYED_WRITE_URL is set) and the web app on PORT. Ctrl-C stops all of it.
import { spawn } from "node:child_process";
import path from "node:path";
import { openDatabase } from "../lib/db/database";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { readServerEnv } from "../lib/env";

const log = (line: string) => console.log(`boundary-lab: ${line}`);
const env = readServerEnv();

const database = await openDatabase(log);
log(database.embedded ? `embedded PostgreSQL on ${new URL(database.url).host}` : "using the PostgreSQL server at DATABASE_URL");
const service = env.DELAYED_WRITE_URL ? null : await spawnDelayedWriteService();
const serviceUrl = env.DELAYED_WRITE_URL ?? service!.url;
log(`delayed-write service at ${serviceUrl}`);

const web = spawn(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "start", "-p", String(env.PORT)], {
  env: { ...process.env, DATABASE_URL: database.url, DELAYED_WRITE_URL: serviceUrl, NEXT_TELEMETRY_DISABLED: "1" },
  stdio: ["ignore", "inherit", "inherit"],
});
log(`web app at http://localhost:${env.PORT}  (Ctrl-C stops everything)`);

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log("stopping");
  const webExited = new Promise<void>((resolve) => (web.exitCode !== null ? resolve() : web.once("exit", () => resolve())));
  web.kill("SIGTERM");
  await Promise.race([webExited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  await service?.stop();
  await database.close();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
web.on("exit", (code) => {
  if (!stopping) {
    log(`web app exited with code ${code}`);
    void stop(code ?? 1);
  }
});
