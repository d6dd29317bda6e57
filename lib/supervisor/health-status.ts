import type { ChildStatus } from "./stack-status";

/** A probe of /api/health: "none" when there is nothing to probe (no worker has a heartbeat, no service is configured). */
export type ProbeResult = "ok" | "none" | "error";

export interface HealthProbes {
  db: ProbeResult;
  worker: ProbeResult;
  delayedWrite: ProbeResult;
}

export interface HealthReport {
  httpStatus: 200 | 503;
  body: HealthProbes & {
    status: "ok" | "degraded";
    /** What is not ok: supervised children by name, probes by field. Empty when ok. */
    degraded: string[];
    /** The supervised children's states, when `npm start` supervises this web app. */
    children?: ChildStatus[];
  };
}

/**
 * The health of the stack from the web process's probes and, under `npm start`, its children's
 * states: ok (200) only when every probe is ok and every supervised child runs; otherwise degraded (503).
 * A child is named while it is not running even if a probe still looks fine: a killed worker's last
 * heartbeat stays fresh for seconds after it died.
 */
export function healthReport(probes: HealthProbes, children: ChildStatus[] | null): HealthReport {
  const degraded = [
    ...(children ?? []).filter((child) => child.state !== "running").map((child) => child.name),
    ...(Object.keys(probes) as (keyof HealthProbes)[]).filter((probe) => probes[probe] !== "ok"),
  ];
  const status = degraded.length === 0 ? "ok" : "degraded";
  return { httpStatus: status === "ok" ? 200 : 503, body: { status, ...probes, degraded, ...(children ? { children } : {}) } };
}
