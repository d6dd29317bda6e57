import { describe, expect, it } from "vitest";
import { healthReport, type HealthProbes } from "./health-status";
import type { ChildStatus } from "./stack-status";

const allOk: HealthProbes = { db: "ok", worker: "ok", delayedWrite: "ok" };
const child = (name: string, state: ChildStatus["state"], pid: number | null = 100): ChildStatus => ({
  name,
  state,
  pid,
  restarts: 0,
  lastExit: null,
  nextStartAt: null,
});

describe("healthReport", () => {
  it("is ok with 200 when every probe is ok and, unsupervised, lists no children", () => {
    expect(healthReport(allOk, null)).toEqual({
      httpStatus: 200,
      body: { status: "ok", db: "ok", worker: "ok", delayedWrite: "ok", degraded: [] },
    });
  });

  it("is ok when every supervised child runs, and reports them", () => {
    const children = [child("delayed-write service", "running"), child("replay worker 1", "running"), child("web app", "running")];
    expect(healthReport(allOk, children)).toEqual({ httpStatus: 200, body: { status: "ok", ...allOk, degraded: [], children } });
  });

  it("names a child that is not running although every probe still looks fine (a dead worker's heartbeat is fresh for seconds)", () => {
    const children = [
      child("delayed-write service", "running"),
      child("replay worker 1", "restarting", null),
      child("replay worker 2", "crashed", null),
      child("web app", "running"),
    ];
    const report = healthReport(allOk, children);
    expect(report.httpStatus).toBe(503);
    expect(report.body.status).toBe("degraded");
    expect(report.body.degraded).toEqual(["replay worker 1", "replay worker 2"]);
  });

  it("names a child that has not finished starting", () => {
    expect(healthReport(allOk, [child("web app", "starting")]).body.degraded).toEqual(["web app"]);
  });

  it("names each probe that is not ok, as before: an error, or no worker at all", () => {
    const report = healthReport({ db: "error", worker: "none", delayedWrite: "ok" }, null);
    expect(report).toMatchObject({
      httpStatus: 503,
      body: { status: "degraded", db: "error", worker: "none", delayedWrite: "ok", degraded: ["db", "worker"] },
    });
    expect(healthReport({ ...allOk, delayedWrite: "error" }, [child("delayed-write service", "restarting", null)]).body.degraded).toEqual([
      "delayed-write service",
      "delayedWrite",
    ]);
  });
});
