import { isTerminal } from "../delayed-write/schemas";
import { classifyRun } from "./classification";
import type { FinalityPolicy } from "./config";
import { followToTerminal, readEvidence, terminalAtMs, untilServiceTime, writeValue, type ReplayContext } from "./context";
import { unitGroupId, unitNamespace, type ReplayUnit } from "./grid";
import { labelFor, recordedLabel, scoreOf } from "./labels";
import { openEffectRecord } from "./open-effect";
import type { FinalityEvidence, RunRecord, UnitResult } from "./records";
import { routedWrite } from "./trace";

type FinalityUnit = Extract<ReplayUnit, { test: "finality" }>;

const basePolicy = (policy: FinalityPolicy) => policy.replace(/^sync_/, "") as "snapshot" | "reconciliation" | "verified_cancellation";

/**
 * One outcome-finality trial: the fixed trace schedules one write and ends when the service
 * acknowledges it; the policy decides when (and what) to score. Whatever the policy records, the
 * operation is then followed by handle so that the terminal label rests on system evidence.
 */
export async function runFinalityTrial(ctx: ReplayContext, unit: FinalityUnit, attempt: number): Promise<UnitResult> {
  const namespace = unitNamespace(ctx.namespacePrefix, unit, attempt);
  const groupId = unitGroupId(unit);
  const write = routedWrite(ctx.trace);
  const expectedValue = writeValue(write.call, groupId, "single");
  const mode = unit.condition.startsWith("sync_") ? "sync" : "async";
  const policy = basePolicy(unit.condition);
  const startedAtMs = ctx.serviceNow();

  // Read-only calls before the write answer from the recorded trace; the write goes to the service.
  const { operation: ack } = await ctx.client.write({ namespace, key: write.key, value: expectedValue, delayMs: unit.delayMs, mode });
  // The interaction ends with the acknowledgement: this read is the endpoint.
  const endpointRead = await readEvidence(ctx, namespace, write.key);
  const endpointLabel = labelFor(endpointRead.entry?.value, expectedValue);

  let cancel: FinalityEvidence["cancel"] = null;
  let afterDue: FinalityEvidence["afterDue"] = null;
  let terminal = ack;
  let terminalRead = endpointRead;
  let scoredAtMs = endpointRead.readAtMs;

  if (policy === "verified_cancellation") {
    const cancelled = await ctx.client.cancel(ack.handle);
    // Confirmation is a fresh read of the operation by handle, not the cancel answer alone.
    const confirmed = (await ctx.client.operation(ack.handle)).operation;
    cancel = { outcome: cancelled.outcome, confirmed };
    terminal = await followToTerminal(ctx, confirmed);
  } else {
    // Snapshot scores now and leaves the operation running; it is still followed for its terminal label.
    terminal = await followToTerminal(ctx, ack);
  }
  if (terminal !== ack || policy !== "snapshot") terminalRead = await readEvidence(ctx, namespace, write.key);
  if (policy !== "snapshot") scoredAtMs = terminalRead.readAtMs;

  if (terminal.status === "cancelled") {
    // A confirmed cancellation must hold: re-read after the write would have been due.
    await untilServiceTime(ctx, terminal.dueAtMs + ctx.scoringMarginMs);
    afterDue = { operation: (await ctx.client.operation(ack.handle)).operation, read: await readEvidence(ctx, namespace, write.key) };
  }

  const listed = await ctx.client.operations(namespace);
  const resolved = isTerminal(terminal.status);
  const terminalLabel = resolved ? labelFor(terminalRead.entry?.value, expectedValue) : "unresolved";
  const recorded = recordedLabel(unit.condition, endpointLabel, terminalLabel);
  const settledAt = terminalAtMs(terminal);

  const evidence: FinalityEvidence = {
    kind: "finality",
    namespace,
    key: write.key,
    expectedValue,
    ack,
    endpointRead,
    cancel,
    terminal,
    terminalRead,
    afterDue,
    namespaceHandles: listed.operations.map((op) => op.handle),
    pendingAtEnd: listed.operations.filter((op) => op.status === "pending").length,
    scoredAtMs,
    serviceFailures: [],
  };

  const run: RunRecord = {
    test: "finality",
    condition: unit.condition,
    taskId: ctx.trace.taskId,
    groupId,
    scheduleId: unit.scheduleId,
    delayMs: unit.delayMs,
    repetition: unit.repetition,
    role: "single",
    namespace,
    key: write.key,
    endpointLabel,
    terminalLabel,
    recordedLabel: recorded,
    finalAtScoring: settledAt !== null && settledAt <= scoredAtMs,
    score: scoreOf(recorded),
    measuredDelayMs: terminal.measuredDelayMs,
    exposure: null,
    classification: classifyRun({ environmentFailure: false, agentError: false, budgetReached: !resolved, evidenceComplete: true }),
    inheritedState: "none",
    startedAtMs,
    endpointAtMs: endpointRead.readAtMs,
    scoredAtMs,
    endedAtMs: ctx.serviceNow(),
    evidence,
  };

  const effect = openEffectRecord({
    ctx,
    role: "single",
    groupId,
    write,
    namespace,
    ack,
    resolved: afterDue?.operation ?? terminal,
    read: afterDue?.read ?? terminalRead,
    cancelOutcome: cancel?.outcome ?? null,
    crossRunRoute: `none: namespace ${namespace} belongs to this trial alone`,
  });

  return { unit, runs: [run], effects: [effect] };
}
