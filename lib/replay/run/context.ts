import type { DelayedWriteClient } from "../../delayed-write/delayed-write-client";
import type { Operation, WriteRequest } from "../../delayed-write/delayed-write-schemas";
import { isTerminal } from "../../delayed-write/delayed-write-schemas";
import type { ReplayUnit } from "../rules/grid";
import type { ReadEvidence } from "../rules/records";
import type { FunctionCall, Trace } from "../rules/trace";

type JsonValue = WriteRequest["value"];

/** What a trial needs from the outside world; trials are thin shells over the pure rules. */
export interface ReplayContext {
  client: DelayedWriteClient;
  serviceUrl: string;
  /** Every namespace of this experiment starts with it, so that experiments never share a key. */
  namespacePrefix: string;
  trace: Trace;
  scoringMarginMs: number;
  /** The service's clock origin (epoch ms), so its monotonic times map to wall-clock time. */
  serviceTimeOrigin: number;
  /** The service's monotonic clock, estimated locally from its time origin. */
  serviceNow(): number;
  /** Told at once when an attempt's harness was late for its delay, so that a worker can shed load and log it. */
  onHarnessLate?: (voided: VoidedAttempt) => void;
  /**
   * Awaited before an attempt that found the service unreachable is retried: a worker waits there
   * (bounded) until the service answers again, so that the retry does not meet it still down.
   */
  beforeUnreachableRetry?: () => Promise<void>;
}

/** An attempt voided because its harness was late for its delay (harness-timing.ts), and whether it is retried. */
export interface VoidedAttempt {
  unit: ReplayUnit;
  attempt: number;
  /** The evidence's detail: `harness late: ` and each race lost. */
  detail: string;
  /** The pause before the retry, or null when the unit is out of retries (stored as an environment failure). */
  retryInMs: number | null;
}

/** How long past its due time an operation is followed before the run is declared unresolved. */
export const FOLLOW_BUDGET_MS = 10_000;

export async function readEvidence(ctx: ReplayContext, namespace: string, key: string): Promise<ReadEvidence> {
  const { entry, readAtMs } = await ctx.client.read(namespace, key);
  return { entry, readAtMs };
}

/** Follows an operation by its handle until the service reports it terminal, or the budget runs out. */
export async function followToTerminal(ctx: ReplayContext, op: Operation): Promise<Operation> {
  if (isTerminal(op.status)) return op;
  const budget = Math.max(0, op.dueAtMs - ctx.serviceNow()) + FOLLOW_BUDGET_MS;
  return (await ctx.client.operation(op.handle, Math.min(Math.ceil(budget), 60_000))).operation;
}

/** Sleeps until the service clock reaches atMs. */
export async function untilServiceTime(ctx: ReplayContext, atMs: number): Promise<void> {
  const wait = atMs - ctx.serviceNow();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
}

/**
 * Reads a key once the service's own clock has passed atMs. The wait is aimed by the local estimate
 * (serviceNow), which can be off by a few milliseconds (each process's clock origin is sampled apart
 * from its monotonic clock, further apart on a loaded machine): a read the service took too early is
 * made again, so that whether it came after atMs never depends on that estimate.
 */
export async function readEvidenceAfter(ctx: ReplayContext, namespace: string, key: string, atMs: number): Promise<ReadEvidence> {
  await untilServiceTime(ctx, atMs);
  for (;;) {
    const read = await readEvidence(ctx, namespace, key);
    if (read.readAtMs >= atMs) return read;
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(atMs - read.readAtMs)));
  }
}

/** When an operation became terminal on the service clock, or null while it is pending. */
export function terminalAtMs(op: Operation): number | null {
  return op.appliedAtMs ?? op.cancelledAtMs ?? op.failedAtMs;
}

/** The value a run's write carries: the trace call, made unique to its trial so that reads identify it. */
export function writeValue(call: FunctionCall, groupId: string, role: string): JsonValue {
  return { function: call.function, args: call.args, groupId, role };
}
