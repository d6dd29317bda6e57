import { describe, expect, it } from "vitest";
import type { WriteRequest } from "./delayed-write-schemas";
import { CapacityError, DelayedWriteStore, MAX_KEYS_PER_NAMESPACE, type StoreClock } from "./delayed-write-store";

/**
 * A clock the test drives by hand: now() returns `t`, and runAt only records the callback so the
 * test decides when (and whether) it fires, including after the store asked to cancel it.
 */
class FakeClock implements StoreClock {
  t = 1_000;
  readonly scheduled: Array<{ atMs: number; fn: () => void; cancelled: boolean }> = [];

  now(): number {
    return this.t;
  }

  runAt(atMs: number, fn: () => void): () => void {
    const entry = { atMs, fn, cancelled: false };
    this.scheduled.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }

  /** Moves time to `t` and fires every callback due by then that was not cancelled, in time order. */
  advanceTo(t: number): void {
    this.t = t;
    const due = this.scheduled.filter((s) => s.atMs <= t && !s.cancelled).sort((a, b) => a.atMs - b.atMs);
    for (const s of due) {
      this.scheduled.splice(this.scheduled.indexOf(s), 1);
      s.fn();
    }
  }

  /** Fires one recorded callback regardless of cancellation: a timer that raced its cancellation. */
  fireAnyway(index: number): void {
    const s = this.scheduled[index];
    if (!s) throw new Error(`no scheduled callback #${index}`);
    this.t = Math.max(this.t, s.atMs);
    s.fn();
  }
}

function setup() {
  const clock = new FakeClock();
  const store = new DelayedWriteStore(clock);
  return { clock, store };
}

function write(overrides: Partial<WriteRequest> = {}): WriteRequest {
  return { namespace: "ns", key: "k", value: "new", delayMs: 0, mode: "async", ...overrides };
}

describe("DelayedWriteStore writes", () => {
  it("applies a zero-delay write before requestWrite returns", () => {
    const { clock, store } = setup();
    const op = store.requestWrite(write({ delayMs: 0 }));

    expect(op.status).toBe("completed");
    expect(op.appliedAtMs).toBe(clock.t);
    expect(op.measuredDelayMs).toBe(0);
    expect(store.read("ns", "k")).toMatchObject({ value: "new", version: 1 });
    // nothing was left on the clock: there is no later application to race
    expect(clock.scheduled).toHaveLength(0);
  });

  it("keeps a nonzero-delay write pending until its due time, then applies it", () => {
    const { clock, store } = setup();
    store.initialise("ns", "k", "old");
    const op = store.requestWrite(write({ delayMs: 50 }));

    expect(op.status).toBe("pending");
    expect(op.dueAtMs).toBe(op.acceptedAtMs + 50);
    expect(clock.scheduled.map((s) => s.atMs)).toEqual([op.dueAtMs]);

    clock.advanceTo(op.dueAtMs - 1);
    expect(op.status).toBe("pending");
    expect(store.read("ns", "k")?.value).toBe("old");

    clock.advanceTo(op.dueAtMs);
    expect(op.status).toBe("completed");
    expect(op.appliedAtMs).toBe(op.dueAtMs);
    expect(op.measuredDelayMs).toBe(50);
    expect(store.read("ns", "k")).toMatchObject({ value: "new", version: 2 });
  });

  it("records the handle of the operation that wrote an entry, and 'initialise' for initialisation", () => {
    const { store } = setup();
    expect(store.initialise("ns", "a", 1).writtenBy).toBe("initialise");
    const op = store.requestWrite(write({ key: "b" }));
    expect(store.read("ns", "b")?.writtenBy).toBe(op.handle);
    expect(op.handle).toMatch(/^op_/);
  });

  it("marks the acknowledgement once, at the clock's time", () => {
    const { clock, store } = setup();
    const op = store.requestWrite(write({ delayMs: 10 }));
    clock.t += 2;
    store.markAcknowledged(op.handle);
    const firstAck = op.ackAtMs;
    clock.t += 5;
    store.markAcknowledged(op.handle);
    expect(firstAck).toBe(op.acceptedAtMs + 2);
    expect(op.ackAtMs).toBe(firstAck);
  });
});

describe("DelayedWriteStore cancellation", () => {
  it("cancels a pending write so that its due callback never commits, even if it still fires", () => {
    const { clock, store } = setup();
    store.initialise("ns", "k", "old");
    const op = store.requestWrite(write({ delayMs: 50 }));

    clock.t += 10;
    const result = store.cancel(op.handle);
    expect(result?.outcome).toBe("cancelled");
    expect(op.status).toBe("cancelled");
    expect(op.cancelledAtMs).toBe(clock.t);
    // the store released its timer...
    expect(clock.scheduled[0]?.cancelled).toBe(true);

    // ...and even a timer that fires anyway (a race with cancellation) must not commit
    clock.fireAnyway(0);
    expect(op.status).toBe("cancelled");
    expect(op.appliedAtMs).toBeNull();
    expect(op.measuredDelayMs).toBeNull();
    expect(store.read("ns", "k")).toMatchObject({ value: "old", version: 1, writtenBy: "initialise" });
  });

  it("answers too_late_completed for a completed write and leaves it completed", () => {
    const { store } = setup();
    const op = store.requestWrite(write({ delayMs: 0 }));
    const result = store.cancel(op.handle);
    expect(result?.outcome).toBe("too_late_completed");
    expect(op.status).toBe("completed");
    expect(op.cancelledAtMs).toBeNull();
    expect(store.read("ns", "k")?.value).toBe("new");
  });

  it("answers already_cancelled to a second cancel and keeps the first cancellation time", () => {
    const { clock, store } = setup();
    const op = store.requestWrite(write({ delayMs: 50 }));
    expect(store.cancel(op.handle)?.outcome).toBe("cancelled");
    const cancelledAt = op.cancelledAtMs;
    clock.t += 5;
    expect(store.cancel(op.handle)?.outcome).toBe("already_cancelled");
    expect(op.cancelledAtMs).toBe(cancelledAt);
  });

  it("answers undefined for an unknown handle", () => {
    const { store } = setup();
    expect(store.cancel("op_nope")).toBeUndefined();
    expect(store.getOperation("op_nope")).toBeUndefined();
  });
});

describe("DelayedWriteStore.waitForTerminal", () => {
  it("resolves when the write is applied", async () => {
    const { clock, store } = setup();
    const op = store.requestWrite(write({ delayMs: 20 }));
    const waiting = store.waitForTerminal(op.handle, 5_000);
    clock.advanceTo(op.dueAtMs);
    const { operation, timedOut } = await waiting;
    expect(timedOut).toBe(false);
    expect(operation.status).toBe("completed");
  });

  it("resolves when the write is cancelled", async () => {
    const { store } = setup();
    const op = store.requestWrite(write({ delayMs: 20 }));
    const waiting = store.waitForTerminal(op.handle, 5_000);
    store.cancel(op.handle);
    const { operation, timedOut } = await waiting;
    expect(timedOut).toBe(false);
    expect(operation.status).toBe("cancelled");
  });

  it("resolves at once for an operation that is already terminal", async () => {
    const { store } = setup();
    const op = store.requestWrite(write({ delayMs: 0 }));
    await expect(store.waitForTerminal(op.handle, 5_000)).resolves.toMatchObject({ timedOut: false, operation: { status: "completed" } });
  });

  it("reports timedOut with the operation still pending when the (real) timeout runs out", async () => {
    const { store } = setup();
    const op = store.requestWrite(write({ delayMs: 20 }));
    const started = performance.now();
    const { operation, timedOut } = await store.waitForTerminal(op.handle, 30);
    expect(timedOut).toBe(true);
    expect(operation.status).toBe("pending");
    // it waited rather than answering at once (setTimeout may wake up to ~1 ms early)
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  });

  it("with a zero timeout, reports a pending operation as timed out without waiting", async () => {
    const { store } = setup();
    const op = store.requestWrite(write({ delayMs: 20 }));
    await expect(store.waitForTerminal(op.handle, 0)).resolves.toMatchObject({ timedOut: true, operation: { status: "pending" } });
  });

  it("rejects an unknown handle", async () => {
    const { store } = setup();
    await expect(store.waitForTerminal("op_nope", 10)).rejects.toThrow(/unknown handle op_nope/);
  });
});

describe("DelayedWriteStore.listOperations", () => {
  it("lists a namespace's operations in acceptance order, optionally by status, and no other namespace's", () => {
    const { store } = setup();
    const done = store.requestWrite(write({ delayMs: 0 }));
    const pending = store.requestWrite(write({ delayMs: 50 }));
    const cancelled = store.requestWrite(write({ delayMs: 50 }));
    store.cancel(cancelled.handle);
    const elsewhere = store.requestWrite(write({ namespace: "other", delayMs: 0 }));

    const handles = (ops: { handle: string }[]) => ops.map((op) => op.handle);
    expect(handles(store.listOperations("ns"))).toEqual([done.handle, pending.handle, cancelled.handle]);
    expect(handles(store.listOperations("ns", "completed"))).toEqual([done.handle]);
    expect(handles(store.listOperations("ns", "pending"))).toEqual([pending.handle]);
    expect(handles(store.listOperations("ns", "cancelled"))).toEqual([cancelled.handle]);
    expect(store.listOperations("ns", "failed")).toEqual([]);
    expect(handles(store.listOperations("other"))).toEqual([elsewhere.handle]);
    expect(store.listOperations("never-used")).toEqual([]);
  });

  it("returns a copy, so a caller cannot alter the store's list", () => {
    const { store } = setup();
    store.requestWrite(write());
    store.listOperations("ns").pop();
    expect(store.listOperations("ns")).toHaveLength(1);
  });
});

describe("DelayedWriteStore.listOperationsByPrefix", () => {
  it("lists the operations of every namespace under a prefix, optionally by status, and nothing outside it", () => {
    const { clock, store } = setup();
    const a = store.requestWrite(write({ namespace: "bl/e1/fin/x", delayMs: 10 }));
    const b = store.requestWrite(write({ namespace: "bl/e1/sep/y" }));
    store.requestWrite(write({ namespace: "bl/e2/fin/x", delayMs: 10 }));
    expect(
      store
        .listOperationsByPrefix("bl/e1/")
        .map((op) => op.handle)
        .sort(),
    ).toEqual([a.handle, b.handle].sort());
    expect(store.listOperationsByPrefix("bl/e1/", "pending").map((op) => op.handle)).toEqual([a.handle]);
    clock.advanceTo(clock.t + 10);
    expect(store.listOperationsByPrefix("bl/e1/", "pending")).toEqual([]);
  });
});

describe("DelayedWriteStore.reset", () => {
  it("replaces the namespace's contents, bumps versions of kept keys and counts pending operations", () => {
    const { clock, store } = setup();
    store.initialise("ns", "a", "a0");
    store.initialise("ns", "b", "b0");
    store.initialise("other", "a", "untouched");
    const pending = store.requestWrite(write({ key: "a", delayMs: 100 }));
    store.requestWrite(write({ namespace: "other", delayMs: 100 })); // pending, but not in ns

    clock.t += 7;
    const result = store.reset("ns", { a: "a1", c: "c1" });

    expect(result.resetAtMs).toBe(clock.t);
    expect(result.pendingOperations).toBe(1);
    expect(result.entries).toEqual([
      { key: "a", value: "a1", version: 2, writtenBy: "reset", writtenAtMs: clock.t },
      { key: "c", value: "c1", version: 1, writtenBy: "reset", writtenAtMs: clock.t },
    ]);
    expect(store.read("ns", "b")).toBeNull(); // not in the reset values: gone
    expect(store.read("other", "a")?.value).toBe("untouched");

    // a reset does not cancel what is still pending: it can land afterwards
    clock.advanceTo(pending.dueAtMs);
    expect(store.read("ns", "a")).toMatchObject({ value: "new", version: 3, writtenBy: pending.handle });
  });

  it("clears the namespace with empty values and reports no pending operations when none remain", () => {
    const { store } = setup();
    store.initialise("ns", "a", 1);
    const result = store.reset("ns", {});
    expect(result.entries).toEqual([]);
    expect(result.pendingOperations).toBe(0);
    expect(store.entries("ns")).toEqual([]);
  });
});

describe("DelayedWriteStore.reset with purge", () => {
  it("forgets the namespace's terminal operations (list and handles), keeps pending ones and other namespaces' history", () => {
    const { store } = setup();
    const done = store.requestWrite(write({ key: "a", value: "canary" }));
    const pending = store.requestWrite(write({ key: "b", delayMs: 100 }));
    const elsewhere = store.requestWrite(write({ namespace: "other" }));

    const result = store.reset("ns", { a: "fresh" }, "purge");

    expect(result).toMatchObject({ pendingOperations: 1, purgedOperations: 1 });
    expect(store.listOperations("ns").map((op) => op.handle)).toEqual([pending.handle]);
    expect(store.getOperation(done.handle)).toBeUndefined();
    expect(store.listOperations("other").map((op) => op.handle)).toEqual([elsewhere.handle]);
  });

  it("keeps the history by default and says nothing about purging", () => {
    const { store } = setup();
    store.requestWrite(write({ key: "a" }));
    const result = store.reset("ns", {});
    expect(result).not.toHaveProperty("purgedOperations");
    expect(store.listOperations("ns")).toHaveLength(1);
  });
});

describe("DelayedWriteStore capacity", () => {
  function fillNamespace(store: DelayedWriteStore) {
    for (let i = 0; i < MAX_KEYS_PER_NAMESPACE; i++) store.initialise("full", `k${i}`, i);
  }

  it("fails a zero-delay write to a new key in a full namespace, with a failure message", () => {
    const { clock, store } = setup();
    fillNamespace(store);
    const op = store.requestWrite(write({ namespace: "full", key: "one-too-many" }));
    expect(op.status).toBe("failed");
    expect(op.failedAtMs).toBe(clock.t);
    expect(op.failure).toContain(`${MAX_KEYS_PER_NAMESPACE} keys`);
    expect(op.appliedAtMs).toBeNull();
    expect(store.read("full", "one-too-many")).toBeNull();
    expect(store.entries("full")).toHaveLength(MAX_KEYS_PER_NAMESPACE);
  });

  it("fails a delayed write when it comes due, and a later cancel answers too_late_failed", async () => {
    const { clock, store } = setup();
    fillNamespace(store);
    const op = store.requestWrite(write({ namespace: "full", key: "one-too-many", delayMs: 10 }));
    const waiting = store.waitForTerminal(op.handle, 5_000);
    expect(op.status).toBe("pending");
    clock.advanceTo(op.dueAtMs);
    await expect(waiting).resolves.toMatchObject({ timedOut: false, operation: { status: "failed" } });
    expect(op.failure).toMatch(/namespace full already holds/);
    expect(store.cancel(op.handle)?.outcome).toBe("too_late_failed");
  });

  it("still lets a full namespace overwrite an existing key", () => {
    const { store } = setup();
    fillNamespace(store);
    const op = store.requestWrite(write({ namespace: "full", key: "k0", value: "over" }));
    expect(op.status).toBe("completed");
    expect(store.read("full", "k0")).toMatchObject({ value: "over", version: 2 });
  });

  it("refuses to initialise a new key in a full namespace with a CapacityError", () => {
    const { store } = setup();
    fillNamespace(store);
    expect(() => store.initialise("full", "one-too-many", 1)).toThrow(CapacityError);
    // the limit is per namespace
    expect(store.initialise("roomy", "k", 1).version).toBe(1);
  });

  it("refuses a reset to more keys than a namespace holds, leaving the namespace as it was", () => {
    const { store } = setup();
    store.initialise("ns", "k", 1);
    const values = Object.fromEntries(Array.from({ length: MAX_KEYS_PER_NAMESPACE + 1 }, (_, i) => [`k${i}`, i]));
    expect(() => store.reset("ns", values)).toThrow(CapacityError);
    expect(store.entries("ns").map((e) => e.key)).toEqual(["k"]);
  });
});
