import type { Operation } from "../../delayed-write/delayed-write-schemas";
import { isTerminal } from "../../delayed-write/delayed-write-schemas";
import { classifyRun } from "../rules/classification";
import type { FinalityPolicy } from "../rules/config";
import { followToTerminal, readEvidence, readEvidenceAfter, terminalAtMs, writeValue, type ReplayContext } from "./context";
import { unitGroupId, unitNamespace, type ReplayUnit } from "../rules/grid";
import { finalAtScoring, labelForAll, recordedLabel, scoreOf, terminalLabelForAll } from "../rules/labels";
import { openEffectRecord } from "./open-effect";
import type { FinalityEvidence, FinalityWrite, RunRecord, UnitResult } from "../rules/records";
import { routedWrites } from "../rules/trace";

type FinalityUnit = Extract<ReplayUnit, { test: "finality" }>;

const basePolicy = (policy: FinalityPolicy) => policy.replace(/^sync_/, "") as "snapshot" | "reconciliation" | "verified_cancellation";

/**
 * One outcome-finality trial: the fixed trace schedules its writes (one per state-changing call, each
 * on its own key) and ends when the service has acknowledged them all; the policy decides when (and
 * what) to score. Whatever the policy records, every operation is then followed by handle so that
 * the terminal label rests on system evidence; it is final only when every one is terminal.
 */
export async function runFinalityTrial(ctx: ReplayContext, unit: FinalityUnit, attempt: number): Promise<UnitResult> {
  const namespace = unitNamespace(ctx.namespacePrefix, unit, attempt);
  const groupId = unitGroupId(unit);
  const routed = routedWrites(ctx.trace);
  const mode = unit.condition.startsWith("sync_") ? "sync" : "async";
  const policy = basePolicy(unit.condition);
  const startedAtMs = ctx.serviceNow();

  // Read-only calls answer from the recorded trace; each write goes to the service, in trace order.
  const acks: Operation[] = [];
  for (const write of routed) {
    const { operation } = await ctx.client.write({
      namespace,
      key: write.key,
      value: writeValue(write.call, groupId, "single"),
      delayMs: unit.delayMs,
      mode,
    });
    acks.push(operation);
  }
  // The interaction ends with the last acknowledgement: these reads are the endpoint.
  const endpointReads = await Promise.all(routed.map((write) => readEvidence(ctx, namespace, write.key)));

  const writes = await Promise.all(
    routed.map(async (write, i): Promise<FinalityWrite> => {
      const ack = acks[i]!;
      const endpointRead = endpointReads[i]!;
      let cancel: FinalityWrite["cancel"] = null;
      let terminal: Operation;
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
      const terminalRead = terminal !== ack || policy !== "snapshot" ? await readEvidence(ctx, namespace, write.key) : endpointRead;
      let afterDue: FinalityWrite["afterDue"] = null;
      if (terminal.status === "cancelled") {
        // A confirmed cancellation must hold: re-read after the write would have been due, by the service's clock;
        // the operation is read after the value, so after that time too.
        const read = await readEvidenceAfter(ctx, namespace, write.key, terminal.dueAtMs + ctx.scoringMarginMs);
        afterDue = { operation: (await ctx.client.operation(ack.handle)).operation, read };
      }
      return {
        key: write.key,
        expectedValue: writeValue(write.call, groupId, "single"),
        ack,
        endpointRead,
        cancel,
        terminal,
        terminalRead,
        afterDue,
      };
    }),
  );
  const [first, ...otherWrites] = writes as [FinalityWrite, ...FinalityWrite[]];
  // Snapshot scores at the endpoint; the other policies once their last read is in.
  const scoredAtMs =
    policy === "snapshot" ? Math.max(...endpointReads.map((r) => r.readAtMs)) : Math.max(...writes.map((w) => w.terminalRead.readAtMs));

  const listed = await ctx.client.operations(namespace);
  const resolved = writes.map((w) => isTerminal(w.terminal.status));
  const endpointLabel = labelForAll(writes.map((w) => ({ held: w.endpointRead.entry?.value, expected: w.expectedValue })));
  const terminalLabel = terminalLabelForAll(
    resolved,
    labelForAll(writes.map((w) => ({ held: w.terminalRead.entry?.value, expected: w.expectedValue }))),
  );
  const recorded = recordedLabel(unit.condition, endpointLabel, terminalLabel);
  const measured = writes.map((w) => w.terminal.measuredDelayMs);

  const evidence: FinalityEvidence = {
    kind: "finality",
    namespace,
    ...first,
    ...(otherWrites.length > 0 && { otherWrites }),
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
    key: routed.map((w) => w.key).join(","),
    endpointLabel,
    terminalLabel,
    recordedLabel: recorded,
    finalAtScoring: finalAtScoring(
      writes.map((w) => terminalAtMs(w.terminal)),
      scoredAtMs,
    ),
    score: scoreOf(recorded),
    // The task's outcome lands with its last write.
    measuredDelayMs: measured.includes(null) ? null : Math.max(...(measured as number[])),
    exposure: null,
    classification: classifyRun({
      environmentFailure: false,
      agentError: false,
      budgetReached: !resolved.every(Boolean),
      evidenceComplete: true,
    }),
    inheritedState: "none",
    startedAtMs,
    endpointAtMs: Math.max(...endpointReads.map((r) => r.readAtMs)),
    scoredAtMs,
    endedAtMs: ctx.serviceNow(),
    evidence,
  };

  const effects = writes.map((w, i) =>
    openEffectRecord({
      ctx,
      role: "single",
      groupId,
      write: routed[i]!,
      namespace,
      ack: w.ack,
      resolved: w.afterDue?.operation ?? w.terminal,
      read: w.afterDue?.read ?? w.terminalRead,
      cancelOutcome: w.cancel?.outcome ?? null,
      crossRunRoute: `none: namespace ${namespace} belongs to this trial alone`,
    }),
  );

  return { unit, runs: [run], effects };
}
