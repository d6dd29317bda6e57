import pLimit from "p-limit";
import { AdmissionControl } from "../replay/run/admission";

/** A first wave of units is spread over this long (runGrid's RAMP_MS). */
const RAMP_MS = 200;

/**
 * The units a worker replays at once: at most `concurrency`, fewer while the admission rule sheds
 * load after a late attempt. The first wave is spread over RAMP_MS, as runGrid's is (docs/replay.md):
 * jobs arrive at an idle worker as a fetched batch, and units all started in one tick made their
 * writes come due at once and the replay's own lag show in the labels at 25 ms.
 */
export class ReplaySlots {
  private readonly limit;
  private readonly admission;
  private inFlight = 0;
  private ramp = { startedAt: 0, started: 0 };

  /** `beforeUnit` is awaited inside the slot, before the unit counts as replaying. */
  constructor(
    private readonly concurrency: number,
    private readonly beforeUnit: () => Promise<void>,
  ) {
    this.limit = pLimit(concurrency);
    this.admission = new AdmissionControl(concurrency);
  }

  /** Whether no unit is replaying. */
  idle(): boolean {
    return this.inFlight === 0;
  }

  run<T>(replay: () => Promise<T>): Promise<T> {
    return this.limit(async () => {
      await this.beforeUnit();
      const now = performance.now();
      if (this.inFlight === 0) this.ramp = { startedAt: now, started: 0 };
      this.inFlight++;
      try {
        if (this.ramp.started < this.concurrency) {
          const at = this.ramp.startedAt + (this.ramp.started++ * RAMP_MS) / this.concurrency;
          if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
        }
        return await replay();
      } finally {
        this.inFlight--;
      }
    });
  }

  /** An attempt's harness was late for its delay: replay fewer units at once. */
  harnessLate(): void {
    this.limit.concurrency = this.admission.recordLate();
  }

  /** A unit finished on time: a full round of them lets one more replay at once. */
  onTime(): void {
    this.limit.concurrency = this.admission.recordOnTime();
  }
}
