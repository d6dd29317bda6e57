import type { Operation } from "../../delayed-write/delayed-write-schemas";
import { isTerminal } from "../../delayed-write/delayed-write-schemas";
import { classifyRun } from "../rules/classification";
import { followToTerminal, readEvidence, terminalAtMs, untilServiceTime, writeValue, type ReplayContext } from "./context";
import { unitGroupId, unitNamespace, type ReplayUnit } from "../rules/grid";
import { labelForAll, scoreOf, terminalLabelForAll, type TerminalLabel } from "../rules/labels";
import { openEffectRecord } from "./open-effect";
import type { ReadEvidence, RunRecord, SeparationEvidence, SeparationWrite, UnitResult } from "../rules/records";
import { inheritedStateFor, isExposed } from "../rules/separation-rules";
import { routedWrites } from "../rules/trace";

type SeparationUnit = Extract<ReplayUnit, { test: "separation" }>;

/**
 * One cross-unit separation pair. Run A replays the trace and schedules its writes (one per
 * state-changing call, each on its own key); run B begins with fresh task state, initialises its
 * value on each of those keys and is scored after A's writes would have landed (and once they are
 * all terminal). The condition decides what lies between them.
 */
export async function runSeparationPair(ctx: ReplayContext, unit: SeparationUnit, attempt: number): Promise<UnitResult> {
  const pairNamespace = unitNamespace(ctx.namespacePrefix, unit, attempt);
  const namespaceA = unit.condition === "namespaced" ? `${pairNamespace}/A` : pairNamespace;
  const namespaceB = unit.condition === "namespaced" ? `${pairNamespace}/B` : pairNamespace;
  const groupId = unitGroupId(unit);
  const routed = routedWrites(ctx.trace);
  const keys = routed.map((w) => w.key);
  const valuesA = routed.map((w) => writeValue(w.call, groupId, "A"));
  const valueB = { initialisedBy: "B", groupId };
  const aWrites = unit.condition !== "no_write";
  const readAll = (namespace: string) => Promise.all(keys.map((key) => readEvidence(ctx, namespace, key)));

  const startA = async (): Promise<{ startedAtMs: number; acks: Operation[] }> => {
    const startedAtMs = ctx.serviceNow();
    const acks: Operation[] = [];
    if (!aWrites) return { startedAtMs, acks };
    for (const [i, key] of keys.entries()) {
      const { operation } = await ctx.client.write({
        namespace: namespaceA,
        key,
        value: valuesA[i]!,
        delayMs: unit.delayMs,
        mode: "async",
      });
      acks.push(operation);
    }
    return { startedAtMs, acks };
  };
  const startB = async (): Promise<{ startedAtMs: number; inits: ReadEvidence[] }> => {
    const startedAtMs = ctx.serviceNow();
    const inits: ReadEvidence[] = [];
    for (const key of keys) {
      const { entry, readAtMs } = await ctx.client.initialise(namespaceB, key, valueB);
      inits.push({ entry, readAtMs });
    }
    return { startedAtMs, inits };
  };
  const followAll = (acks: Operation[]) => Promise.all(acks.map((ack) => followToTerminal(ctx, ack)));

  let a: Awaited<ReturnType<typeof startA>>;
  let b: Awaited<ReturnType<typeof startB>>;
  let aEndpointReads: ReadEvidence[];
  let aTerminals: Operation[] | null = null;
  let reset: SeparationEvidence["reset"] = null;
  let bEndpointReads: ReadEvidence[];
  let bScoringReads: ReadEvidence[];

  if (unit.condition === "b_before_a") {
    b = await startB();
    bEndpointReads = await readAll(namespaceB);
    bScoringReads = bEndpointReads; // B is scored before A schedules anything
    a = await startA();
    aEndpointReads = await readAll(namespaceA);
  } else {
    a = await startA();
    if (unit.condition === "verified_reset") {
      // Wait until A's operations are terminal, restore B's initial values, and read them back before B begins.
      aTerminals = await followAll(a.acks);
      aEndpointReads = await readAll(namespaceA);
      reset = await ctx.client.reset(namespaceB, Object.fromEntries(keys.map((key) => [key, valueB])));
      b = await startB();
    } else {
      // A's endpoint reads and B's start overlap, as two consecutive runs of a harness would.
      [aEndpointReads, b] = await Promise.all([readAll(namespaceA), startB()]);
    }
    bEndpointReads = await readAll(namespaceB);
    aTerminals ??= await followAll(a.acks);
    const lastDue = a.acks.length ? Math.max(...a.acks.map((ack) => ack.dueAtMs)) : a.startedAtMs + unit.delayMs;
    await untilServiceTime(ctx, lastDue + ctx.scoringMarginMs);
    bScoringReads = await readAll(namespaceB);
  }
  aTerminals ??= await followAll(a.acks);

  const namespaces = [...new Set([namespaceA, namespaceB])];
  const listings = await Promise.all(namespaces.map((ns) => ctx.client.operations(ns)));
  const namespaceHandles = Object.fromEntries(namespaces.map((ns, i) => [ns, listings[i]!.operations.map((op) => op.handle)]));
  const pendingAtEnd = listings.flatMap((l) => l.operations).filter((op) => op.status === "pending").length;

  const aAcks = a.acks;
  const aFinals = aTerminals;
  const exposure = isExposed({
    scoredEntriesWrittenBy: bScoringReads.map((r) => r.entry?.writtenBy ?? null),
    aHandles: aAcks.map((ack) => ack.handle),
  });
  const perKey: SeparationWrite[] = keys.map((key, i) => ({
    key,
    valueA: valuesA[i],
    aAck: aAcks[i] ?? null,
    aTerminal: aFinals[i] ?? null,
    aEndpointRead: aAcks[i] ? aEndpointReads[i]! : null,
    bInit: b.inits[i]!,
    bEndpointRead: bEndpointReads[i]!,
    bScoringRead: bScoringReads[i]!,
  }));
  const [first, ...otherWrites] = perKey as [SeparationWrite, ...SeparationWrite[]];
  const evidence: SeparationEvidence = {
    kind: "separation",
    namespaceA,
    namespaceB,
    ...first,
    valueB,
    ...(otherWrites.length > 0 && { otherWrites }),
    reset,
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
    key: keys.join(","),
    evidence,
  };

  const aResolved = aFinals.map((op) => isTerminal(op.status));
  // A succeeds when every write completed; final only when every one is terminal.
  const aTerminalLabel: TerminalLabel | null =
    aAcks.length === 0 ? null : terminalLabelForAll(aResolved, aFinals.every((op) => op.status === "completed") ? "success" : "failure");
  const aSettled = aFinals.map(terminalAtMs);
  const aMeasured = aFinals.map((op) => op.measuredDelayMs);
  const runA: RunRecord = {
    ...common,
    role: "A",
    namespace: namespaceA,
    endpointLabel: aAcks.length ? labelForAll(aEndpointReads.map((r, i) => ({ held: r.entry?.value, expected: valuesA[i] }))) : null,
    terminalLabel: aTerminalLabel,
    // A is scored once its operations are terminal: the pair waits for them anyway.
    recordedLabel: aTerminalLabel,
    finalAtScoring: aAcks.length ? aResolved.every(Boolean) : null,
    score: scoreOf(aTerminalLabel),
    measuredDelayMs: aMeasured.length === 0 || aMeasured.includes(null) ? null : Math.max(...(aMeasured as number[])),
    exposure: null,
    classification: classifyRun({
      environmentFailure: false,
      agentError: false,
      budgetReached: !aResolved.every(Boolean),
      evidenceComplete: true,
    }),
    inheritedState: inheritedStateFor(unit.condition, "A"),
    startedAtMs: a.startedAtMs,
    endpointAtMs: Math.max(...aEndpointReads.map((r) => r.readAtMs)),
    scoredAtMs: aAcks.length === 0 || aSettled.includes(null) ? null : Math.max(...(aSettled as number[])),
    endedAtMs: Math.max(...aEndpointReads.map((r) => r.readAtMs)),
  };

  const bScored = labelForAll(bScoringReads.map((r) => ({ held: r.entry?.value, expected: valueB })));
  const bScoredAtMs = Math.max(...bScoringReads.map((r) => r.readAtMs));
  const runB: RunRecord = {
    ...common,
    role: "B",
    namespace: namespaceB,
    endpointLabel: labelForAll(bEndpointReads.map((r) => ({ held: r.entry?.value, expected: valueB }))),
    terminalLabel: bScored,
    recordedLabel: bScored,
    // B's values are final at scoring when no operation that can reach them is still pending.
    finalAtScoring:
      aAcks.length === 0 ||
      unit.condition === "b_before_a" ||
      unit.condition === "namespaced" ||
      aSettled.every((at, i) => at !== null && at <= bScoringReads[i]!.readAtMs),
    score: scoreOf(bScored),
    measuredDelayMs: null,
    exposure,
    classification: classifyRun({ environmentFailure: false, agentError: false, budgetReached: false, evidenceComplete: true }),
    inheritedState: inheritedStateFor(unit.condition, "B"),
    startedAtMs: b.startedAtMs,
    endpointAtMs: Math.max(...bEndpointReads.map((r) => r.readAtMs)),
    scoredAtMs: bScoredAtMs,
    endedAtMs: bScoredAtMs,
  };

  const effects = aAcks.map((ack, i) =>
    openEffectRecord({
      ctx,
      role: "A",
      groupId,
      write: routed[i]!,
      namespace: namespaceA,
      ack,
      resolved: aFinals[i]!,
      read: null,
      cancelOutcome: null,
      crossRunRoute: crossRunRoute(unit.condition, namespaceA, keys[i]!),
    }),
  );
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
