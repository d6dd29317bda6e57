import { describe, expect, it } from "vitest";
import { monotonicNowMs, PreciseScheduler } from "./precise-timer";

// Correctness only: order, never early, cancellation. No upper bound on lateness is asserted,
// because that would measure this machine's load rather than the scheduler.

interface Run {
  label: string;
  atMs: number;
  ranAtMs: number;
}

/** Schedules callbacks that record when they ran; `done` resolves once `expected` of them have run. */
function recorder(expected: number) {
  const runs: Run[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const schedule = (scheduler: PreciseScheduler, label: string, atMs: number) =>
    scheduler.runAt(atMs, () => {
      runs.push({ label, atMs, ranAtMs: monotonicNowMs() });
      if (runs.length === expected) resolveDone();
    });
  return { runs, done, schedule };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PreciseScheduler", () => {
  it("runs callbacks in time order, whatever order they were scheduled in", async () => {
    const scheduler = new PreciseScheduler();
    const base = monotonicNowMs();
    // deliberately scrambled, including offsets inside the spin window and a tie broken by insertion
    const offsets: Array<[string, number]> = [
      ["e", 40],
      ["a", 1],
      ["d", 25],
      ["b", 5],
      ["c1", 12],
      ["f", 60],
      ["c2", 12],
    ];
    const { runs, done, schedule } = recorder(offsets.length);
    for (const [label, offset] of offsets) schedule(scheduler, label, base + offset);
    await done;
    expect(runs.map((r) => r.label)).toEqual(["a", "b", "c1", "c2", "d", "e", "f"]);
  });

  it("never runs a callback before its time", async () => {
    const scheduler = new PreciseScheduler();
    const base = monotonicNowMs();
    const offsets = [0.2, 0.9, 1.4, 2, 3.7, 7, 10.5, 16, 22.3, 35];
    const { runs, done, schedule } = recorder(offsets.length);
    offsets.forEach((offset, i) => schedule(scheduler, `#${i}`, base + offset));
    await done;
    expect(runs).toHaveLength(offsets.length);
    for (const run of runs) expect(run.ranAtMs, run.label).toBeGreaterThanOrEqual(run.atMs);
  });

  it("runs a callback whose time has already passed", async () => {
    const scheduler = new PreciseScheduler();
    const { runs, done, schedule } = recorder(1);
    schedule(scheduler, "past", monotonicNowMs() - 50);
    await done;
    expect(runs.map((r) => r.label)).toEqual(["past"]);
  });

  it("re-arms for an earlier callback scheduled after a far later one", { timeout: 10_000 }, async () => {
    const scheduler = new PreciseScheduler();
    const base = monotonicNowMs();
    const { runs, done, schedule } = recorder(1);
    // if the coarse timer stayed armed for the later entry, `done` would hang a minute and the test time out
    const cancelLate = schedule(scheduler, "late", base + 60_000);
    schedule(scheduler, "early", base + 20);
    await done;
    cancelLate();
    expect(runs.map((r) => r.label)).toEqual(["early"]);
  });

  it("runs a callback scheduled from inside another callback", async () => {
    const scheduler = new PreciseScheduler();
    const { runs, done, schedule } = recorder(2);
    scheduler.runAt(monotonicNowMs() + 5, () => {
      runs.push({ label: "outer", atMs: 0, ranAtMs: monotonicNowMs() });
      schedule(scheduler, "inner", monotonicNowMs() + 5);
    });
    await done;
    expect(runs.map((r) => r.label)).toEqual(["outer", "inner"]);
    expect(runs[1]!.ranAtMs).toBeGreaterThanOrEqual(runs[1]!.atMs);
  });

  it("never runs a cancelled callback, and still runs the others", async () => {
    const scheduler = new PreciseScheduler();
    const base = monotonicNowMs();
    const { runs, done, schedule } = recorder(2);
    schedule(scheduler, "kept-1", base + 10);
    const cancelFirst = schedule(scheduler, "cancelled-head", base + 5); // at the head of the queue
    const cancelMiddle = schedule(scheduler, "cancelled-middle", base + 20);
    schedule(scheduler, "kept-2", base + 30);
    cancelFirst();
    cancelMiddle();
    await done;
    // give a wrongly surviving callback every chance to show up
    await sleep(50);
    expect(runs.map((r) => r.label)).toEqual(["kept-1", "kept-2"]);
  });

  it("never runs a callback cancelled while the scheduler is already spinning towards it", async () => {
    const scheduler = new PreciseScheduler();
    let ran = false;
    // inside the spin window, so the spin loop is already running when the cancel arrives
    const cancel = scheduler.runAt(monotonicNowMs() + 1, () => (ran = true));
    cancel();
    await sleep(30);
    expect(ran).toBe(false);
  });

  it("never runs a cancelled callback that is already due when the spin loop reaches it", async () => {
    // Entries that are due at once (a past time, or tied with a kept entry) are run by the spin
    // loop's first pass, before any cleanup of cancelled entries: only the cancelled flag stops them.
    const scheduler = new PreciseScheduler();
    const base = monotonicNowMs();
    const { runs, done, schedule } = recorder(2);
    const cancelPast = schedule(scheduler, "cancelled-past", base - 10);
    schedule(scheduler, "kept-past", base - 5);
    schedule(scheduler, "kept-tie", base + 8);
    const cancelTie = schedule(scheduler, "cancelled-tie", base + 8); // same time, queued after kept-tie
    cancelPast();
    cancelTie();
    await done;
    await sleep(30);
    expect(runs.map((r) => r.label)).toEqual(["kept-past", "kept-tie"]);
  });

  it("treats cancelling a callback that already ran as harmless", async () => {
    const scheduler = new PreciseScheduler();
    const { runs, done, schedule } = recorder(1);
    const cancel = schedule(scheduler, "once", monotonicNowMs() + 2);
    await done;
    expect(() => cancel()).not.toThrow();
    await sleep(10);
    expect(runs).toHaveLength(1);
  });
});
