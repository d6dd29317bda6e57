import { isDeepStrictEqual } from "node:util";
import type { Operation } from "../../delayed-write/delayed-write-schemas";
import { expectedRunCount } from "./grid";
import { harnessLateness } from "./harness-timing";
import type { ReplayConfig } from "./config";
import { writesOf, type FinalityEvidence, type RunRecord, type SeparationEvidence, type UnitResult } from "./records";
import { resetVerified } from "./separation-rules";

export interface CheckResult {
  name: string;
  passed: boolean;
  evidence: string;
}

/**
 * Boundary Lab's implementation checks (the paper ran 12 without listing them). Each is computed
 * from the evidence the service returned, and reports how many cases it covered: a check that
 * covered nothing its grid should have produced fails rather than passing vacuously.
 */
export function implementationChecks(
  results: UnitResult[],
  config: Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions" | "finalityPolicies" | "separationConditions" | "traces">,
): CheckResult[] {
  const runs = results.flatMap((r) => r.runs);
  const finality = runs.flatMap((run) => (run.evidence.kind === "finality" ? [{ run, ev: run.evidence }] : []));
  const pairs = results.flatMap((r) => {
    const b = r.runs.find((run) => run.role === "B");
    return b && b.evidence.kind === "separation" ? [{ b, ev: b.evidence }] : [];
  });
  // A trace with several state-changing calls has one write per key: the per-operation checks cover each.
  const finalityWrites = finality.flatMap(({ run, ev }) => writesOf(ev).map((w) => ({ run, ev, w })));
  const pairWrites = pairs.flatMap(({ ev }) => writesOf(ev));
  const allOps: Operation[] = [
    ...finalityWrites.map(({ w }) => w.terminal),
    ...pairWrites.flatMap((w) => (w.aTerminal ? [w.aTerminal] : [])),
  ];
  const acks: Operation[] = [...finalityWrites.map(({ w }) => w.ack), ...pairWrites.flatMap((w) => (w.aAck ? [w.aAck] : []))];
  const checks: CheckResult[] = [];
  const add = (name: string, cases: number, failures: string[], what: string, expectCases = true) => {
    const passed = failures.length === 0 && (!expectCases || cases > 0);
    const detail = failures.length
      ? `; first failures: ${failures.slice(0, 3).join(" | ")}`
      : cases === 0 && expectCases
        ? "; no case covered"
        : "";
    checks.push({ name, passed, evidence: `${cases - failures.length}/${cases} ${what}${detail}` });
  };
  const hasNonzero = config.delaysMs.some((d) => d > 0);
  const hasZero = config.delaysMs.includes(0);

  {
    const cases = acks.filter((op) => op.mode === "async" && op.delayMs > 0);
    const byHandle = new Map(allOps.map((op) => [op.handle, op]));
    const bad = cases.filter((ack) => {
      const done = byHandle.get(ack.handle);
      return ack.status !== "pending" || ack.ackAtMs === null || (done?.appliedAtMs != null && ack.ackAtMs >= done.appliedAtMs);
    });
    add(
      "ack_precedes_application_at_nonzero_delay",
      cases.length,
      bad.map((op) => op.handle),
      "async writes with a nonzero delay were acknowledged while pending, before they were applied",
      hasNonzero,
    );
  }
  {
    const cases = acks.filter((op) => op.mode === "async" && op.delayMs === 0);
    const bad = cases.filter(
      (op) => op.status !== "completed" || op.appliedAtMs === null || op.ackAtMs === null || op.appliedAtMs > op.ackAtMs,
    );
    add(
      "zero_delay_applied_before_ack",
      cases.length,
      bad.map((op) => op.handle),
      "zero-delay async writes were applied before the acknowledgement",
      hasZero,
    );
  }
  {
    const cases = allOps.filter((op) => op.status === "completed");
    const bad = cases.filter((op) => op.measuredDelayMs === null || op.measuredDelayMs < op.delayMs);
    add(
      "never_applied_early",
      cases.length,
      bad.map((op) => `${op.handle} ${op.measuredDelayMs}ms<${op.delayMs}ms`),
      "completed writes were applied no earlier than their delay",
    );
  }
  {
    const cases = finalityWrites.filter(({ w }) => w.cancel?.outcome === "cancelled");
    const bad = cases.filter(({ w }) => {
      const after = w.afterDue;
      return (
        !after ||
        after.operation.status !== "cancelled" ||
        after.operation.appliedAtMs !== null ||
        after.read.entry?.writtenBy === w.ack.handle ||
        after.read.readAtMs < w.ack.dueAtMs
      );
    });
    add(
      "cancelled_operation_never_commits",
      cases.length,
      bad.map(({ w }) => w.ack.handle),
      "confirmed cancellations re-read after their due time were still cancelled and never written",
      hasNonzero && config.finalityPolicies.includes("verified_cancellation"),
    );
  }
  {
    const cases = finalityWrites.filter(({ w }) => w.cancel !== null && w.cancel.outcome !== "cancelled");
    const bad = cases.filter(({ w }) => !(w.cancel!.outcome === "too_late_completed" && w.cancel!.confirmed.status === "completed"));
    add(
      "late_cancellation_reports_completed",
      cases.length,
      bad.map(({ w }) => w.ack.handle),
      "cancellations of already-completed writes answered completed, never a false cancelled",
      config.finalityPolicies.includes("sync_verified_cancellation") ||
        (hasZero && config.finalityPolicies.includes("verified_cancellation")),
    );
  }
  {
    const cases = finalityWrites.filter(({ w }) => w.ack.mode === "sync");
    const bad = cases.filter(({ w }) => w.ack.status !== "completed" || w.endpointRead.entry?.writtenBy !== w.ack.handle);
    add(
      "sync_write_visible_on_return",
      cases.length,
      bad.map(({ w }) => w.ack.handle),
      "synchronous writes were completed and visible when the call returned",
      config.finalityPolicies.some((p) => p.startsWith("sync_")),
    );
  }
  {
    const cases = finalityWrites.filter(({ run }) => run.condition === "reconciliation" || run.condition === "sync_reconciliation");
    const bad = cases.filter(
      ({ ev, w }) =>
        w.terminal.status === "pending" ||
        w.terminalRead.readAtMs < (w.terminal.appliedAtMs ?? w.terminal.failedAtMs ?? Infinity) ||
        ev.scoredAtMs < w.terminalRead.readAtMs,
    );
    add(
      "reconciliation_scored_after_terminal",
      cases.length,
      bad.map(({ w }) => w.ack.handle),
      "reconciliation trials were scored after their operation was terminal",
      config.finalityPolicies.some((p) => p.endsWith("reconciliation")),
    );
  }
  {
    const cases = finalityWrites.filter(({ run, w }) => run.condition === "snapshot" && w.ack.delayMs > 0);
    const bad = cases.filter(({ ev, w }) => w.terminal.appliedAtMs !== null && w.terminal.appliedAtMs <= ev.scoredAtMs);
    add(
      "snapshot_scored_before_application",
      cases.length,
      bad.map(({ w }) => w.ack.handle),
      "nonzero-delay snapshot trials were scored before their write was applied",
      hasNonzero && config.finalityPolicies.includes("snapshot"),
    );
  }
  {
    // The replay's own latency must stay inside every nonzero delay (harness-timing.ts). Late units are
    // retried by runUnitWithRule, so none should be stored; this re-checks the evidence as stored.
    const timing = results.map((r) => harnessLateness(r.runs));
    const cases = timing.reduce((sum, t) => sum + t.cases, 0);
    add(
      "harness_ahead_of_every_delay",
      cases,
      timing.flatMap((t) => t.late),
      "nonzero-delay units observed, cancelled or initialised before the delayed write came due",
      hasNonzero,
    );
  }
  {
    // Every unit owns its namespaces, and the service lists in them only the unit's own operations.
    const owner = new Map<string, string>();
    const bad: string[] = [];
    let cases = 0;
    for (const r of results) {
      for (const run of r.runs) {
        const ev = run.evidence;
        const spaces = ev.kind === "finality" ? [ev.namespace] : ev.kind === "separation" ? [ev.namespaceA, ev.namespaceB] : [];
        for (const ns of spaces) {
          const prior = owner.get(ns);
          if (prior !== undefined && prior !== run.groupId) bad.push(`${ns} used by ${prior} and ${run.groupId}`);
          owner.set(ns, run.groupId);
        }
      }
      const b = r.runs.find((run) => run.evidence.kind !== "environment_failure");
      const ev = b?.evidence;
      if (!ev || ev.kind === "environment_failure") continue;
      cases++;
      const own = new Set(
        ev.kind === "finality" ? writesOf(ev).map((w) => w.ack.handle) : writesOf(ev).flatMap((w) => (w.aAck ? [w.aAck.handle] : [])),
      );
      const listed = ev.kind === "finality" ? ev.namespaceHandles : Object.values(ev.namespaceHandles).flat();
      if (listed.some((h) => !own.has(h)) || listed.length !== own.size)
        bad.push(`${b!.groupId} lists ${listed.length} operations, owns ${own.size}`);
      if (ev.kind === "separation" && (ev.namespaceA === ev.namespaceB) !== (b!.condition !== "namespaced"))
        bad.push(`${b!.groupId} key spaces do not match its condition`);
    }
    add("namespaces_disjoint", cases, bad, "units used key spaces no other unit touched, holding only their own operations");
  }
  {
    const cases = pairs.filter(({ b }) => b.condition === "verified_reset");
    const bad = cases.filter(({ ev }) => {
      const writes = writesOf(ev);
      return (
        !resetVerified(
          ev.reset,
          writes.map((w) => w.key),
          ev.valueB,
        ) ||
        writes.some((w) => !w.aTerminal || w.aTerminal.status === "pending" || ev.reset!.resetAtMs < (w.aTerminal.appliedAtMs ?? Infinity))
      );
    });
    add(
      "verified_reset_reads_back_initial_value",
      cases.length,
      bad.map(({ b }) => b.groupId),
      "resets ran after A's operation was terminal and read back exactly B's initial value with nothing pending",
      config.separationConditions.includes("verified_reset"),
    );
  }
  {
    const cases = pairs.filter(({ b }) => b.condition === "no_write");
    const bad = cases.filter(
      ({ ev }) => writesOf(ev).some((w) => w.aAck !== null) || Object.values(ev.namespaceHandles).flat().length !== 0,
    );
    add(
      "no_write_control_issued_no_operation",
      cases.length,
      bad.map(({ b }) => b.groupId),
      "no-write pairs left no operation on the service",
      config.separationConditions.includes("no_write"),
    );
  }
  {
    const cases = pairs.filter(({ b }) => b.condition === "b_before_a");
    const bad = cases.filter(({ ev }) => {
      const writes = writesOf(ev);
      const firstRequest = Math.min(...writes.map((w) => w.aAck?.acceptedAtMs ?? -Infinity));
      return writes.some((w) => !w.aAck || w.bScoringRead.readAtMs >= firstRequest);
    });
    add(
      "b_scored_before_a_requested",
      cases.length,
      bad.map(({ b }) => b.groupId),
      "B-before-A pairs scored B before A's write was requested",
      config.separationConditions.includes("b_before_a"),
    );
  }
  {
    const bad = pairs.filter(({ b, ev }) => b.exposure !== exposureByTiming(ev));
    add(
      "exposure_matches_service_timeline",
      pairs.length,
      bad.map(({ b }) => b.groupId),
      "pairs' exposure agrees with the service's own timeline (A applied between B's initialisation and scoring, on B's key)",
      config.separationConditions.length > 0,
    );
  }
  {
    const pending = results
      .flatMap((r) => r.runs.slice(0, 1))
      .reduce(
        (sum, run) =>
          sum + (run.evidence.kind === "environment_failure" ? 0 : (run.evidence as FinalityEvidence | SeparationEvidence).pendingAtEnd),
        0,
      );
    add(
      "no_operation_left_pending",
      results.length,
      pending ? [`${pending} operations still pending at the end of their unit`] : [],
      "units ended with every operation on the service terminal",
    );
  }
  {
    // By handle in a map: a search per write was quadratic, minutes on 12 traces' 43,200 runs.
    const effects = new Map(results.flatMap((r) => r.effects).map((e) => [e.observationHandle, e]));
    const bad = acks.filter((ack) => {
      const effect = effects.get(ack.handle);
      return !effect || effect.terminalStatus === "unresolved" || effect.terminalEvidence.operation.handle !== ack.handle;
    });
    add(
      "open_effects_resolved_by_handle",
      acks.length,
      bad.map((op) => op.handle),
      "scheduled writes have an open-effects record resolved by querying their handle",
    );
  }
  {
    const expected = expectedRunCount(config);
    const keys = new Set(runs.map(naturalKey));
    const problems = [
      ...(runs.length !== expected ? [`${runs.length} runs recorded, ${expected} expected`] : []),
      ...(keys.size !== runs.length ? [`${runs.length - keys.size} duplicate runs`] : []),
    ];
    add("every_run_recorded_once", expected, problems, "runs of the grid recorded exactly once, each with a classification");
  }
  return checks;
}

export function naturalKey(run: Pick<RunRecord, "taskId" | "condition" | "scheduleId" | "delayMs" | "repetition" | "role">): string {
  return `${run.taskId}|${run.condition}|${run.scheduleId}|${run.delayMs}|${run.repetition}|${run.role}`;
}

/** Exposure re-derived from timestamps alone, as a cross-check on the writtenBy rule: on any of the pair's keys. */
function exposureByTiming(ev: SeparationEvidence): boolean {
  if (ev.namespaceA !== ev.namespaceB) return false;
  return writesOf(ev).some((w) => {
    const a = w.aTerminal;
    if (!a || a.appliedAtMs === null || w.bInit.entry === null) return false;
    return (
      a.appliedAtMs > w.bInit.entry.writtenAtMs &&
      a.appliedAtMs <= w.bScoringRead.readAtMs &&
      isDeepStrictEqual(w.bScoringRead.entry?.value, w.valueA)
    );
  });
}
