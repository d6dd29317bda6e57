import { describe, expect, it } from "vitest";
import { RUNNER_STALE_AFTER_MS, runnerGone } from "./runner-liveness";

describe("runnerGone", () => {
  const now = new Date("2026-12-01T20:00:00Z");
  const beatAgo = (ms: number) => new Date(now.getTime() - ms);
  const alive = () => true;
  const dead = () => false;

  it("is gone once its heartbeat is older than the limit, wherever it ran", () => {
    expect(
      runnerGone({ host: "other", pid: 7, heartbeatAt: beatAgo(RUNNER_STALE_AFTER_MS + 1) }, { host: "here", now, pidAlive: alive }),
    ).toBe(true);
    expect(runnerGone({ host: "other", pid: 7, heartbeatAt: beatAgo(RUNNER_STALE_AFTER_MS) }, { host: "here", now, pidAlive: dead })).toBe(
      false,
    );
  });
  it("is gone at once, on its own host, when its pid no longer runs", () => {
    expect(runnerGone({ host: "here", pid: 7, heartbeatAt: beatAgo(100) }, { host: "here", now, pidAlive: dead })).toBe(true);
    expect(runnerGone({ host: "here", pid: 7, heartbeatAt: beatAgo(100) }, { host: "here", now, pidAlive: alive })).toBe(false);
  });
});
