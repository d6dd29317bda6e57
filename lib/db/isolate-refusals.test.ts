import { describe, expect, it } from "vitest";
import { isDataRefusal, retryOnTransactionConflict, storeIsolatingRefusals } from "./isolate-refusals";

const refusal = (code: string) => Object.assign(new Error(`refused ${code}`), { code });

describe("storing a batch around the items PostgreSQL refuses", () => {
  it("tells refused data (classes 22, 23, 54) from a failing database", () => {
    expect(["22021", "22P05", "22003", "23505", "54000"].map((code) => isDataRefusal(refusal(code)))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["40001", "57P01", "08006", "not_found", "ECONNRESET"].map((code) => isDataRefusal(refusal(code)))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(isDataRefusal(new Error("no code"))).toBe(false);
    expect(isDataRefusal(null)).toBe(false);
  });

  it("halves the batch until each refused item is alone, storing every other item once", async () => {
    const stored: number[] = [];
    const attempts: number[][] = [];
    const items = Array.from({ length: 13 }, (_, i) => i);
    const bad = new Set([3, 4, 11]);
    const result = await storeIsolatingRefusals(items, async (batch) => {
      attempts.push([...batch]);
      const poison = batch.find((i) => bad.has(i));
      if (poison !== undefined) throw refusal("22023");
      stored.push(...batch);
      return batch.map((i) => `stored ${i}`);
    });
    expect(result.refused.map((r) => r.item)).toEqual([3, 4, 11]);
    expect(result.stored).toEqual(items.filter((i) => !bad.has(i)).map((i) => `stored ${i}`));
    expect(stored.sort((a, b) => a - b)).toEqual(items.filter((i) => !bad.has(i)));
    expect(attempts[0]).toEqual(items);
    expect(attempts.length).toBeLessThanOrEqual(3 * 2 * Math.ceil(Math.log2(13)) + 1);
  });

  it("lets any other error fail the whole batch", async () => {
    await expect(storeIsolatingRefusals([1, 2], async () => Promise.reject(refusal("40P01")))).rejects.toMatchObject({ code: "40P01" });
  });

  it("runs a transaction again after a deadlock or serialization failure, up to three times, and nothing else", async () => {
    let calls = 0;
    expect(
      await retryOnTransactionConflict(async () => (++calls < 3 ? Promise.reject(refusal(calls === 1 ? "40P01" : "40001")) : "stored")),
    ).toBe("stored");
    expect(calls).toBe(3);
    calls = 0;
    await expect(retryOnTransactionConflict(async () => (++calls, Promise.reject(refusal("40P01"))))).rejects.toMatchObject({
      code: "40P01",
    });
    expect(calls).toBe(3);
    calls = 0;
    await expect(retryOnTransactionConflict(async () => (++calls, Promise.reject(refusal("22023"))))).rejects.toMatchObject({
      code: "22023",
    });
    expect(calls).toBe(1);
  });
});
