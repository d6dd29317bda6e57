import type { JobHelpers, Task, WorkerUtils } from "graphile-worker";
import type { z } from "zod";
import type { SqlTx } from "../db/sql-transaction";
import { addJobNow, addKeyedJob, addKeyedJobs } from "./queue";

type Tx = Pick<SqlTx, "$queryRaw">;

/**
 * A job defined once: its name (graphile-worker's task identifier), its payload's zod schema, how
 * often it is tried, and its key (a second enqueue with the same key is merged into the queued job).
 * The code that enqueues it and the worker that handles it both go through the definition.
 */
export interface JobDefinition<P> {
  readonly name: string;
  readonly maxAttempts: number;
  /** The job's key; `position`: the payload's place among the payloads enqueued together (0 for one alone). */
  keyOf(payload: P, position?: number): string;
  /** One job inside the caller's transaction: it runs once that commits, and not before `runAt` when given. */
  enqueue(tx: Tx, payload: P, runAt?: Date): Promise<void>;
  /** One job per payload, in order, inside the caller's transaction. */
  enqueueAll(tx: Tx, payloads: readonly P[]): Promise<void>;
  /** One job outside any transaction, through graphile-worker's utilities. */
  enqueueNow(utils: WorkerUtils, payload: P): Promise<void>;
  /**
   * The worker's task: the payload parsed once, then handled. A payload that does not parse never
   * will: it is logged and its job completed rather than retried.
   */
  handler(log: (line: string) => void, handle: (payload: P, helpers: JobHelpers) => Promise<void>): Task;
}

export function defineJob<S extends z.ZodType>(spec: {
  name: string;
  payload: S;
  maxAttempts: number;
  key: (payload: z.output<S>, position: number) => string;
}): JobDefinition<z.output<S>> {
  const { name, maxAttempts } = spec;
  const keyOf = (payload: z.output<S>, position = 0) => spec.key(payload, position);
  return {
    name,
    maxAttempts,
    keyOf,
    enqueue: (tx, payload, runAt) => addKeyedJob(tx, name, payload, keyOf(payload), maxAttempts, runAt),
    enqueueAll: (tx, payloads) =>
      addKeyedJobs(
        tx,
        name,
        payloads.map((payload, position) => ({ payload, key: keyOf(payload, position) })),
        maxAttempts,
      ),
    enqueueNow: (utils, payload) => addJobNow(utils, name, payload, keyOf(payload), maxAttempts),
    handler: (log, handle) => async (payload, helpers) => {
      const parsed = spec.payload.safeParse(payload);
      if (!parsed.success) {
        log(`job ${helpers.job.id}: invalid ${name} payload, not retried: ${parsed.error.issues[0]?.message}`);
        return;
      }
      await handle(parsed.data, helpers);
    },
  };
}
