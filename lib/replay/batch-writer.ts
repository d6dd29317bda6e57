import type { Db } from "../db/prisma";
import { saveUnitResults, type StoredUnit } from "./persist";

/**
 * Collects finished units and stores them in batches: one transaction per batch instead of one per
 * unit keeps the database client's CPU off the replay's timing path. Each caller's promise
 * settles only when its unit is committed (or failed), so a job never completes before its runs exist.
 */
export class UnitResultWriter {
  private pending: Array<{ unit: StoredUnit; resolve: (outcome: "stored" | "already_stored") => void; reject: (error: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: { maxUnits: number; maxWaitMs: number } = { maxUnits: 64, maxWaitMs: 100 },
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
        try {
          const outcomes = await saveUnitResults(this.db, batch.map((b) => b.unit));
          batch.forEach((b, i) => b.resolve(outcomes[i]!));
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      });
    }
    return this.flushing;
  }
}
