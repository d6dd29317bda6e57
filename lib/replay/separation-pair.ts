import type { Operation } from "../delayed-write/schemas";
import { isTerminal } from "../delayed-write/schemas";
import { classifyRun } from "./classification";
import { followToTerminal, readEvidence, terminalAtMs, untilServiceTime, writeValue, type ReplayContext } from "./context";
import { unitGroupId, unitNamespace, type ReplayUnit } from "./grid";
import { labelFor, scoreOf, type TerminalLabel } from "./labels";
import { openEffectRecord } from "./open-effect";
import type { ReadEvidence, RunRecord, SeparationEvidence, UnitResult } from "./records";
import { inheritedStateFor, isExposed } from "./separation-rules";
import { routedWrite } from "./trace";

type SeparationUnit = Extract<ReplayUnit, { test: "separation" }>;

/**
 * One cross-unit separation pair. Run A replays the trace and schedules its write; run B begins
 * with fresh task state, initialises its value on the service and is scored after A's write would
 * have landed (and once A's operation is terminal). The condition decides what lies between them.
 */
export async function runSeparationPair(ctx: ReplayContext, unit: SeparationUnit, attempt: number): Promise<UnitResult> {
  const pairNamespace = unitNamespace(ctx.namespacePrefix, unit, attempt);
  const namespaceA = unit.condition === "namespaced" ? `${pairNamespace}/A` : pairNamespace;
  const namespaceB = unit.condition === "namespaced" ? `${pairNamespace}/B` : pairNamespace;
  const groupId = unitGroupId(unit);
  const write = routedWrite(ctx.trace);
  const valueA = writeValue(write.call, groupId, "A");
  const valueB = { initialisedBy: "B", groupId };
  const aWrites = unit.condition !== "no_write";

  const startA = async (): Promise<{ startedAtMs: number; ack: Operation | null }> => {
    const startedAtMs = ctx.serviceNow();
    if (!aWrites) return { startedAtMs, ack: null };
    const { operation } = await ctx.client.write({ namespace: namespaceA, key: write.key, value: valueA, delayMs: unit.delayMs, mode: "async" });
    return { startedAtMs, ack: operation };
  };
  const startB = async (): Promise<{ startedAtMs: number; init: ReadEvidence }> => {
    const startedAtMs = ctx.serviceNow();
    const { entry, readAtMs } = await ctx.client.initialise(namespaceB, write.key, valueB);
    return { startedAtMs, init: { entry, readAtMs } };
  };

  let a: Awaited<ReturnType<typeof startA>>;
  let b: Awaited<ReturnType<typeof startB>>;
  let aEndpointRead: ReadEvidence;
  let aTerminal: Operation | null = null;
  let reset: SeparationEvidence["reset"] = null;
  let bEndpointRead: ReadEvidence;
  let bScoringRead: ReadEvidence;

  if (unit.condition === "b_before_a") {
    b = await startB();
    bEndpointRead = await readEvidence(ctx, namespaceB, write.key);
    bScoringRead = bEndpointRead; // B is scored before A schedules anything
    a = await startA();
    aEndpointRead = await readEvidence(ctx, namespaceA, write.key);
  } else {
    a = await startA();
    if (unit.condition === "verified_reset") {
      // Wait until A's operation is terminal, restore B's initial value, and read it back before B begins.
      if (a.ack) aTerminal = await followToTerminal(ctx, a.ack);
      aEndpointRead = await readEvidence(ctx, namespaceA, write.key);
      reset = await ctx.client.reset(namespaceB, { [write.key]: valueB });
      b = await startB();
    } else {
      // A's endpoint read and B's start overlap, as two consecutive runs of a harness would.
      [aEndpointRead, b] = await Promise.all([readEvidence(ctx, namespaceA, write.key), startB()]);
    }
    bEndpointRead = await readEvidence(ctx, namespaceB, write.key);
    if (a.ack && !aTerminal) aTerminal = await followToTerminal(ctx, a.ack);
    await untilServiceTime(ctx, (a.ack?.dueAtMs ?? a.startedAtMs + unit.delayMs) + ctx.scoringMarginMs);
    bScoringRead = await readEvidence(ctx, namespaceB, write.key);
  }
  if (a.ack && !aTerminal) aTerminal = await followToTerminal(ctx, a.ack);

  const namespaces = [...new Set([namespaceA, namespaceB])];
  const listings = await Promise.all(namespaces.map((ns) => ctx.client.operations(ns)));
  const namespaceHandles = Object.fromEntries(namespaces.map((ns, i) => [ns, listings[i]!.operations.map((op) => op.handle)]));
  const pendingAtEnd = listings.flatMap((l) => l.operations).filter((op) => op.status === "pending").length;

  const aAck = a.ack;
  const aFinal = aTerminal;
  const exposure = isExposed({ scoredEntryWrittenBy: bScoringRead.entry?.writtenBy ?? null, aHandle: aAck?.handle ?? null });
  const evidence: SeparationEvidence = {
    kind: "separation",
    namespaceA,
    namespaceB,
    key: write.key,
    valueA,
    valueB,
    aAck,
    aTerminal: aFinal,
    aEndpointRead: aAck ? aEndpointRead : null,
    bInit: b.init,
    bEndpointRead,
    reset,
    bScoringRead,
    namespaceHandles,
    pendingAtEnd,
    serviceFailures: [],
  };
  const common = {
    test: "separation" as const,
    condition: unit.condition,
    taskId: ctx.trace.taskId,
    groupId,
    scheduleId: unit.scheduleId,
    delayMs: unit.delayMs,
    repetition: unit.repetition,
    key: write.key,
    evidence,
  };

  const aResolved = aFinal ? isTerminal(aFinal.status) : true;
  const aTerminalLabel: TerminalLabel | null = !aFinal ? null : !aResolved ? "unresolved" : aFinal.status === "completed" ? "success" : "failure";
  const runA: RunRecord = {
    ...common,
    role: "A",
    namespace: namespaceA,
    endpointLabel: aAck ? labelFor(aEndpointRead.entry?.value, valueA) : null,
    terminalLabel: aTerminalLabel,
    // A is scored once its operation is terminal: the pair waits for it anyway.
    recordedLabel: aTerminalLabel,
    finalAtScoring: aAck ? aResolved : null,
    score: scoreOf(aTerminalLabel),
    measuredDelayMs: aFinal?.measuredDelayMs ?? null,
    exposure: null,
    classification: classifyRun({ environmentFailure: false, agentError: false, budgetReached: !aResolved, evidenceComplete: true }),
    inheritedState: inheritedStateFor(unit.condition, "A"),
    startedAtMs: a.startedAtMs,
    endpointAtMs: aEndpointRead.readAtMs,
    scoredAtMs: aFinal ? terminalAtMs(aFinal) : null,
    endedAtMs: aEndpointRead.readAtMs,
  };

  const bScored = labelFor(bScoringRead.entry?.value, valueB);
  const aSettled = aFinal ? terminalAtMs(aFinal) : null;
  const runB: RunRecord = {
    ...common,
    role: "B",
    namespace: namespaceB,
    endpointLabel: labelFor(bEndpointRead.entry?.value, valueB),
    terminalLabel: bScored,
    recordedLabel: bScored,
    // B's value is final at scoring when no operation that can reach it is still pending.
    finalAtScoring: !aAck || unit.condition === "b_before_a" || unit.condition === "namespaced" || (aSettled !== null && aSettled <= bScoringRead.readAtMs),
    score: scoreOf(bScored),
    measuredDelayMs: null,
    exposure,
    classification: classifyRun({ environmentFailure: false, agentError: false, budgetReached: false, evidenceComplete: true }),
    inheritedState: inheritedStateFor(unit.condition, "B"),
    startedAtMs: b.startedAtMs,
    endpointAtMs: bEndpointRead.readAtMs,
    scoredAtMs: bScoringRead.readAtMs,
    endedAtMs: bScoringRead.readAtMs,
  };

  const effects =
    aAck && aFinal
      ? [
          openEffectRecord({
            ctx,
            role: "A",
            groupId,
            write,
            namespace: namespaceA,
            ack: aAck,
            resolved: aFinal,
            read: null,
            cancelOutcome: null,
            crossRunRoute: crossRunRoute(unit.condition, namespaceA, write.key),
          }),
        ]
      : [];
  return { unit, runs: [runA, runB], effects };
}

function crossRunRoute(condition: SeparationUnit["condition"], namespace: string, key: string): string {
  switch (condition) {
    case "namespaced":
      return `none: run B of this pair uses another namespace than ${namespace}`;
    case "verified_reset":
      return `${namespace}:${key} is shared with run B; blocked by a verified reset after this operation was terminal`;
    case "b_before_a":
      return `${namespace}:${key} is shared with run B, which was scored before this write was requested`;
    default:
      return `${namespace}:${key} is shared with run B of this pair`;
  }
}
