// A graphile-worker pool that takes replay jobs and never finishes them, and never writes a heartbeat:
// run as a process of its own (`node --import tsx lib/testing/ghost-pool.ts DATABASE_URL CONCURRENCY`)
// and SIGKILLed, it is a pool that died before its first heartbeat, holding its jobs' locks.
import { Logger, run } from "graphile-worker";
import { z } from "zod";
import { replayUnitJob } from "../replay/run/jobs";

const [connectionString, concurrency] = z.tuple([z.url(), z.coerce.number().int().min(1)]).parse(process.argv.slice(2));
await run({
  connectionString,
  concurrency,
  noHandleSignals: true,
  logger: new Logger(() => () => {}),
  taskList: { [replayUnitJob.name]: () => new Promise<void>(() => {}) },
});
console.log("ghost pool running");
