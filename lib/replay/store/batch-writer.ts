import type { Db } from "../../db/prisma";
import { saveUnitResults, type StoredUnit } from "./persist";

/**
 * A batch that neither commits nor fails within this long is failed. Batches are stored one after
 * another, and a transaction lost with its server (PostgreSQL restarted mid-commit) was seen never to
 * settle: every later batch of the worker then waited behind it for good, its jobs stayed locked by a
 * live worker and the experiment stayed running. A failed batch's jobs are retried; a retry finds a
 * unit already stored if that transaction did commit. Prisma gives up on an interactive transaction
 * after 5 s by itself, so a batch that is merely slow never comes near this.
 */
const BATCH_TIMEOUT_MS = 30_000;

/**
 * Collects finished units and stores them in batches: one transaction per batch instead of one per
 * unit keeps the database client's CPU off the replay's timing path. Each caller's promise
 * settles only when its unit is committed (or failed), so a job never completes before its runs exist.
 */
export class UnitResultWriter {
  private pending: Array<{ unit: StoredUnit; resolve: (outcome: "stored" | "already_stored") => void; reject: (error: unknown) => void }> =
    [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: { maxUnits: number; maxWaitMs: number; batchTimeoutMs?: number } = { maxUnits: 64, maxWaitMs: 100 },
  ) {}

  write(unit: StoredUnit): Promise<"stored" | "already_stored"> {
    return new Promise((resolve, reject) => {
      this.pending.push({ unit, resolve, reject });
      if (this.pending.length >= this.options.maxUnits) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.maxWaitMs);
    });
  }

  /** Stores what is waiting now; resolves once every batch started so far is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0);
    if (batch.length) {
      this.flushing = this.flushing.then(async () => {
        const timeoutMs = this.options.batchTimeoutMs ?? BATCH_TIMEOUT_MS;
        let timer: NodeJS.Timeout | undefined;
        const abandoned = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`a batch of ${batch.length} units neither committed nor failed within ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        try {
          const outcomes = await Promise.race([
            saveUnitResults(
              this.db,
              batch.map((b) => b.unit),
            ),
            abandoned,
          ]);
          batch.forEach((b, i) => b.resolve(outcomes[i]!));
        } catch (error) {
          for (const b of batch) b.reject(error);
        } finally {
          clearTimeout(timer);
        }
      });
    }
    return this.flushing;
  }
}
