import { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { warmUp } from "../replay/run/warmup";

/** How long a unit waits for an unreachable delayed-write service before it runs anyway. */
const SERVICE_WAIT_MS = 5_000;
/** How long the retry of an attempt that found the service unreachable waits for it (a supervised restart takes seconds). */
const SERVICE_RETRY_WAIT_MS = 30_000;
/** How often an idle worker asks the service for its clock, to notice a restart before a unit runs on the old clock. */
const SERVICE_CHECK_MS = 500;
/** Pause between two attempts to reach a service that is down. */
const RECONNECT_PAUSE_MS = 250;

const timeout = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The delayed-write service's clock as this worker sees it, kept true across service restarts.
 *
 * When the service becomes unreachable, a new unit waits (up to SERVICE_WAIT_MS, then it runs and
 * fails as an environment failure) until it answers again. If it answers with another clock origin,
 * it restarted: cold, with a clock that starts from zero. Its clock is then re-read and it is warmed
 * up first; otherwise the units after a restart waited on the old clock (skipping their waits) and
 * met a cold service whose lag flipped 25 ms labels.
 */
export class ServiceClock {
  private offset: number;
  private resyncing: Promise<void> | null = null;
  private watching: NodeJS.Timeout | undefined;

  private constructor(
    readonly client: DelayedWriteClient,
    private readonly options: { poolId: string; concurrency: number; log: (line: string) => void },
    private timeOrigin: number,
  ) {
    this.offset = performance.timeOrigin - timeOrigin;
  }

  /** Reads the service's clock and warms it up at the worker's concurrency. */
  static async connect(
    serviceUrl: string,
    options: { poolId: string; concurrency: number; log: (line: string) => void },
  ): Promise<ServiceClock> {
    const client = new DelayedWriteClient(serviceUrl);
    const { timeOrigin } = await client.clock();
    await warmUp(client, `bl/${options.poolId}-warmup`, options.concurrency);
    return new ServiceClock(client, options, timeOrigin);
  }

  /** The service's clock origin (epoch ms) as last read. */
  get origin(): number {
    return this.timeOrigin;
  }

  /** The service's monotonic clock, estimated locally. */
  readonly now = (): number => performance.now() + this.offset;

  /** Re-reads the clock (and warms a restarted service up) until the service answers; one at a time. */
  resync(): Promise<void> {
    return (this.resyncing ??= (async () => {
      for (let round = 1; ; round++) {
        try {
          const clock = await this.client.clock();
          if (clock.timeOrigin !== this.timeOrigin) {
            await warmUp(
              this.client,
              `bl/${this.options.poolId}-warmup-${round}-${Math.round(clock.timeOrigin)}`,
              this.options.concurrency,
            );
            this.timeOrigin = clock.timeOrigin;
            this.offset = performance.timeOrigin - clock.timeOrigin;
            this.options.log(`the delayed-write service restarted: clock re-read and service warmed up`);
          }
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
        }
      }
    })().finally(() => {
      this.resyncing = null;
    }));
  }

  /** What a new unit awaits: a resync in progress, for at most SERVICE_WAIT_MS. */
  async beforeUnit(): Promise<void> {
    if (this.resyncing) await Promise.race([this.resyncing, new Promise((resolve) => setTimeout(resolve, SERVICE_WAIT_MS))]);
  }

  /** What the retry of an attempt that found the service unreachable awaits: the service back, for at most SERVICE_RETRY_WAIT_MS. */
  beforeUnreachableRetry = (): Promise<void> => Promise.race([this.resync(), timeout(SERVICE_RETRY_WAIT_MS)]);

  /**
   * A service restarted while no unit ran (under `npm start` it comes back on the same URL) has a new
   * clock; no request failed, so without this check the next units would wait on the old one. While
   * units run, a restart makes their requests fail, which triggers the same re-read: the check then
   * stays off the replay's path (`idle` says whether a unit is replaying).
   */
  watchWhileIdle(idle: () => boolean): void {
    this.watching = setInterval(() => {
      if (this.resyncing || !idle()) return;
      this.client.clock().then(
        (clock) => {
          if (clock.timeOrigin !== this.timeOrigin) void this.resync();
        },
        () => void this.resync(),
      );
    }, SERVICE_CHECK_MS);
  }

  stopWatching(): void {
    clearInterval(this.watching);
  }

  async close(): Promise<void> {
    this.stopWatching();
    await this.client.close();
  }
}
