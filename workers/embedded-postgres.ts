// The embedded PostgreSQL in a process of its own (lib/db/embedded-process.ts starts it):
// `node --import tsx workers/embedded-postgres.ts DATA_DIR [PORT]` starts (or shares) the cluster in
// DATA_DIR, prints {"event":"ready","url":...} and keeps it running until SIGTERM or SIGINT, or
// until the process that started it is gone; then it stops the cluster and exits 0.
import { z } from "zod";
import { startEmbeddedPostgres } from "../lib/db/embedded";

const [dataDir, port] = z.tuple([z.string().min(1), z.coerce.number().int().min(1).max(65535).optional()]).parse(process.argv.slice(2));
const log = (line: string) => console.error(line);
const database = await startEmbeddedPostgres(dataDir, log, port === undefined ? {} : { port });
console.log(JSON.stringify({ event: "ready", url: database.url }));

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await database.stop();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
// Its parent died without stopping it (SIGKILL): the cluster is stopped rather than left to nobody.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop();
}, 1_000);
