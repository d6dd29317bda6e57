import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { UnitResultWriter } from "./batch-writer";
import type { StoredUnit } from "./persist";

// A database whose first transaction never settles (as one lost with its server mid-commit was
// seen to do) and whose later ones commit at once.
function databaseLosingItsFirstTransaction(): Db {
  let transactions = 0;
  const tx = { $executeRaw: async () => 0 };
  return {
    $transaction: (work: (t: typeof tx) => Promise<unknown>) => (++transactions === 1 ? new Promise(() => {}) : work(tx)),
  } as unknown as Db;
}

const unit = { experimentId: "e", result: { runs: [], effects: [] } } as unknown as StoredUnit;

describe("UnitResultWriter", () => {
  it("fails a batch that never settles, and stores the batches after it", async () => {
    const writer = new UnitResultWriter(databaseLosingItsFirstTransaction(), { maxUnits: 1, maxWaitMs: 10, batchTimeoutMs: 50 });
    const lost = writer.write(unit);
    const next = writer.write(unit);
    await expect(lost).rejects.toThrow(/a batch of 1 units neither committed nor failed within 50 ms/);
    await expect(next).resolves.toBe("stored");
  });
});
