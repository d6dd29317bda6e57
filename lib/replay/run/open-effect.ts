import type { Operation } from "../../delayed-write/delayed-write-schemas";
import { isTerminal } from "../../delayed-write/delayed-write-schemas";
import { terminalAtMs, type ReplayContext } from "./context";
import type { EffectRecord, ReadEvidence } from "../rules/records";
import type { RoutedWrite } from "../rules/trace";

/**
 * The open-effects record (paper Table C.1) the tool wrapper keeps for one scheduled write: filled
 * from the acknowledgement, resolved by what the service reported when the handle was followed.
 */
export function openEffectRecord(input: {
  ctx: ReplayContext;
  role: EffectRecord["role"];
  groupId: string;
  write: RoutedWrite;
  namespace: string;
  ack: Operation;
  /** The operation as last read by its handle. */
  resolved: Operation;
  read: ReadEvidence | null;
  cancelOutcome: string | null;
  crossRunRoute: string;
}): EffectRecord {
  const { ctx, ack, resolved, write } = input;
  return {
    role: input.role,
    taskId: ctx.trace.taskId,
    groupId: input.groupId,
    tracePosition: write.tracePosition,
    action: write.call.function,
    arguments: write.call.args,
    initiatedAtMs: ack.acceptedAtMs,
    resource: `${ctx.serviceUrl}/v1/values?namespace=${input.namespace}&key=${write.key}`,
    controller: "delayed-write service",
    observationHandle: ack.handle,
    endpointStatus: ack.status,
    possibleTransitions: { from: ack.status, to: ack.status === "pending" ? ["completed", "failed", "cancelled"] : [] },
    relevantUntilMs: ack.dueAtMs,
    crossRunRoute: input.crossRunRoute,
    terminalStatus: isTerminal(resolved.status) ? (resolved.status as "completed" | "failed" | "cancelled") : "unresolved",
    terminalEvidence: { operation: resolved, read: input.read, cancelOutcome: input.cancelOutcome },
    resolvedAtMs: terminalAtMs(resolved),
  };
}
