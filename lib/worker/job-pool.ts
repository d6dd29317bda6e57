import { EventEmitter } from "node:events";
import { Logger, run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";

export interface JobPoolOptions {
  databaseUrl: string;
  /** Jobs held at once. */
  concurrency: number;
  taskList: TaskList;
  /** Told when graphile-worker ended a pool by itself (the database went away), before a new one starts. */
  onPoolLost(): void;
  log(line: string): void;
}

/**
 * graphile-worker's pool of this worker, restarted when it ends by itself. graphile-worker 0.17 locks
 * jobs in the name of the pool, so `lockOwners` (the ids of the live pools) is what a heartbeat must
 * cover and what forceUnlockWorkers must be given.
 */
export class JobPool {
  readonly lockOwners = new Set<string>();
  private runner: Runner | null = null;
  private restarting: Promise<void> = Promise.resolve();
  private stopping = false;

  constructor(private readonly options: JobPoolOptions) {}

  async start(): Promise<void> {
    process.on("unhandledRejection", this.onUnhandledRejection);
    this.runner = await this.startRunner();
  }

  /**
   * Stops taking jobs and waits for those in flight; after `timeoutMs`, calls `handBack` with the
   * pools' ids (their jobs are to be unlocked) and kills the pool. Returns whether it timed out.
   */
  async stop(timeoutMs: number, handBack: (lockOwners: string[]) => Promise<void>): Promise<boolean> {
    this.stopping = true;
    await this.restarting;
    const current = this.runner;
    const stopped = current ? current.stop().catch(() => {}) : Promise.resolve();
    const timedOut = await Promise.race([
      stopped.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref()),
    ]);
    if (timedOut) {
      await handBack([...this.lockOwners]);
      await current?.kill().catch(() => {});
    }
    return timedOut;
  }

  /** After stop(): no more unhandled rejections of graphile-worker are expected from this pool. */
  release(): void {
    process.off("unhandledRejection", this.onUnhandledRejection);
  }

  // graphile-worker 0.17 leaves a promise unhandled when the database goes away while a pool shuts
  // down (returning its local queue of fetched jobs), and Node would end the process for it. Those
  // jobs stay locked by a pool that no longer beats, so they are unlocked and redone like a dead
  // worker's: such a rejection is logged, not fatal. Any other unhandled rejection still is.
  private readonly onUnhandledRejection = (reason: unknown) => {
    if (!(reason instanceof Error && reason.stack?.includes("graphile-worker"))) throw reason;
    this.options.log(`graphile-worker (unhandled, the pool's jobs are redone): ${reason.message}`);
  };

  private async startRunner(): Promise<Runner> {
    const owners = new Set<string>();
    let ended = false;
    // graphile-worker shuts its pool down for good when it cannot record a job's outcome (the
    // database went away), and that shutdown can itself fail and never settle. The worker then
    // starts a new pool; the old one no longer beats, so its jobs are unlocked once its heartbeat is
    // stale (here or by any other worker) and redone in fresh namespaces, idempotently.
    const poolEnded = (why: string) => {
      // On stop() the pool's ids stay until it is released: a stop that times out unlocks its jobs.
      if (ended || this.stopping) return;
      ended = true;
      for (const id of owners) this.lockOwners.delete(id);
      this.options.log(`graphile-worker pool ended (${why}); starting a new one`);
      this.options.onPoolLost();
      this.restarting = this.restartRunner();
    };
    const events: WorkerEvents = new EventEmitter();
    events.on("pool:create", ({ workerPool }) => {
      owners.add(workerPool.id);
      this.lockOwners.add(workerPool.id);
    });
    events.on("pool:release", ({ workerPool }) => {
      owners.delete(workerPool.id);
      this.lockOwners.delete(workerPool.id);
    });
    events.on("pool:gracefulShutdown", ({ message }) => poolEnded(message));
    const started = await run({
      connectionString: this.options.databaseUrl,
      concurrency: this.options.concurrency,
      noHandleSignals: true,
      pollInterval: 1_000,
      events,
      // Fetch and complete jobs in batches: fewer queries per unit on the replay's timing path.
      // Failures are recorded in batches too: graphile-worker handles a failed batch (it shuts the
      // pool down, see above), while an unbatched failJob that loses its connection is an unhandled
      // rejection, which ended the process when PostgreSQL restarted.
      preset: { worker: { localQueue: { size: this.options.concurrency }, completeJobBatchDelay: 20, failJobBatchDelay: 20 } },
      logger: new Logger(() => (level, message) => {
        if (level === "error") this.options.log(`graphile-worker: ${message}`);
      }),
      taskList: this.options.taskList,
    });
    void started.promise.then(
      () => poolEnded("stopped"),
      (error: unknown) => poolEnded((error as Error).message),
    );
    return started;
  }

  private async restartRunner(): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 5) * 1_000));
      if (this.stopping) return;
      try {
        this.runner = await this.startRunner();
        this.options.log(`graphile-worker pool restarted (attempt ${attempt})`);
        return;
      } catch (error) {
        this.options.log(`graphile-worker pool restart failed (attempt ${attempt}): ${(error as Error).message}`);
      }
    }
  }
}
