import { randomUUID } from "node:crypto";
import {
  MAX_KEYS_PER_NAMESPACE,
  isTerminal,
  type CancelOutcome,
  type Operation,
  type OperationStatus,
  type ResetOperations,
  type StoredEntry,
  type WriteRequest,
} from "./delayed-write-schemas";

export interface StoreClock {
  now(): number;
  /** Runs fn when now() reaches atMs; returns a cancel function. */
  runAt(atMs: number, fn: () => void): () => void;
}

export { MAX_KEYS_PER_NAMESPACE };
export const MAX_OPERATIONS = 1_000_000;

type JsonValue = StoredEntry["value"];

export class CapacityError extends Error {}

/**
 * The delayed-write service's state: values by namespace and key, and every operation ever
 * accepted. An async write is acknowledged before it is applied when its delay is nonzero; a
 * cancelled operation never commits, because application re-checks the status first.
 */
export class DelayedWriteStore {
  private readonly values = new Map<string, Map<string, StoredEntry>>();
  private readonly operations = new Map<string, Operation>();
  private readonly byNamespace = new Map<string, Operation[]>();
  private readonly timers = new Map<string, () => void>();
  private readonly waiters = new Map<string, Array<(op: Operation) => void>>();

  constructor(private readonly clock: StoreClock) {}

  requestWrite(request: WriteRequest): Operation {
    if (this.operations.size >= MAX_OPERATIONS) throw new CapacityError(`the service holds ${MAX_OPERATIONS} operations`);
    const acceptedAtMs = this.clock.now();
    const op: Operation = {
      handle: `op_${randomUUID()}`,
      namespace: request.namespace,
      key: request.key,
      value: request.value,
      delayMs: request.delayMs,
      mode: request.mode,
      status: "pending",
      acceptedAtMs,
      dueAtMs: acceptedAtMs + request.delayMs,
      ackAtMs: null,
      appliedAtMs: null,
      cancelledAtMs: null,
      failedAtMs: null,
      failure: null,
      measuredDelayMs: null,
    };
    this.operations.set(op.handle, op);
    const list = this.byNamespace.get(op.namespace) ?? [];
    list.push(op);
    this.byNamespace.set(op.namespace, list);
    // A zero delay is applied before the answer: the paper's zero-delay rows depend on it.
    if (request.delayMs === 0) this.apply(op);
    else
      this.timers.set(
        op.handle,
        this.clock.runAt(op.dueAtMs, () => this.apply(op)),
      );
    return op;
  }

  /** Records when the acceptance answer was sent, so that evidence can compare it with application. */
  markAcknowledged(handle: string): void {
    const op = this.operations.get(handle);
    if (op && op.ackAtMs === null) op.ackAtMs = this.clock.now();
  }

  getOperation(handle: string): Operation | undefined {
    return this.operations.get(handle);
  }

  /** Resolves with the operation once terminal, or as it stands when timeoutMs runs out. */
  waitForTerminal(handle: string, timeoutMs: number): Promise<{ operation: Operation; timedOut: boolean }> {
    const op = this.operations.get(handle);
    if (!op) return Promise.reject(new Error(`unknown handle ${handle}`));
    if (isTerminal(op.status) || timeoutMs === 0) return Promise.resolve({ operation: op, timedOut: !isTerminal(op.status) });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const list = this.waiters.get(handle) ?? [];
        this.waiters.set(
          handle,
          list.filter((w) => w !== onTerminal),
        );
        resolve({ operation: op, timedOut: true });
      }, timeoutMs);
      const onTerminal = (done: Operation) => {
        clearTimeout(timer);
        resolve({ operation: done, timedOut: false });
      };
      const list = this.waiters.get(handle) ?? [];
      list.push(onTerminal);
      this.waiters.set(handle, list);
    });
  }

  cancel(handle: string): { operation: Operation; outcome: CancelOutcome } | undefined {
    const op = this.operations.get(handle);
    if (!op) return undefined;
    switch (op.status) {
      case "completed":
        return { operation: op, outcome: "too_late_completed" };
      case "failed":
        return { operation: op, outcome: "too_late_failed" };
      case "cancelled":
        return { operation: op, outcome: "already_cancelled" };
      case "pending":
        this.timers.get(handle)?.();
        this.timers.delete(handle);
        op.status = "cancelled";
        op.cancelledAtMs = this.clock.now();
        this.settle(op);
        return { operation: op, outcome: "cancelled" };
    }
  }

  listOperations(namespace: string, status?: OperationStatus): Operation[] {
    const list = this.byNamespace.get(namespace) ?? [];
    return status ? list.filter((op) => op.status === status) : [...list];
  }

  listOperationsByPrefix(prefix: string, status?: OperationStatus): Operation[] {
    const found: Operation[] = [];
    for (const [namespace, list] of this.byNamespace) {
      if (namespace.startsWith(prefix)) found.push(...(status ? list.filter((op) => op.status === status) : list));
    }
    return found;
  }

  read(namespace: string, key: string): StoredEntry | null {
    return this.values.get(namespace)?.get(key) ?? null;
  }

  entries(namespace: string): StoredEntry[] {
    return [...(this.values.get(namespace)?.values() ?? [])].sort((a, b) => a.key.localeCompare(b.key));
  }

  initialise(namespace: string, key: string, value: JsonValue): StoredEntry {
    const entry = this.put(namespace, key, value, "initialise");
    if (!entry) throw new CapacityError(`namespace ${namespace} already holds ${MAX_KEYS_PER_NAMESPACE} keys`);
    return entry;
  }

  /**
   * Replaces everything the namespace holds with `values`; pending operations are left alone and
   * counted. With `purge`, the namespace's terminal operations are forgotten too (list and handles).
   */
  reset(
    namespace: string,
    values: Record<string, JsonValue>,
    operations: ResetOperations = "keep",
  ): { entries: StoredEntry[]; pendingOperations: number; purgedOperations?: number; resetAtMs: number } {
    if (Object.keys(values).length > MAX_KEYS_PER_NAMESPACE)
      throw new CapacityError(`a namespace holds at most ${MAX_KEYS_PER_NAMESPACE} keys`); // the HTTP schema refuses this first
    const resetAtMs = this.clock.now();
    const previous = this.values.get(namespace);
    const fresh = new Map<string, StoredEntry>();
    for (const [key, value] of Object.entries(values)) {
      const version = (previous?.get(key)?.version ?? 0) + 1;
      fresh.set(key, { key, value, version, writtenBy: "reset", writtenAtMs: resetAtMs });
    }
    this.values.set(namespace, fresh);
    const purged = operations === "purge" ? { purgedOperations: this.forgetTerminalOperations(namespace) } : {};
    return { entries: this.entries(namespace), pendingOperations: this.listOperations(namespace, "pending").length, ...purged, resetAtMs };
  }

  private forgetTerminalOperations(namespace: string): number {
    const list = this.byNamespace.get(namespace) ?? [];
    const pending = list.filter((op) => op.status === "pending");
    for (const op of list) if (op.status !== "pending") this.operations.delete(op.handle);
    if (pending.length) this.byNamespace.set(namespace, pending);
    else this.byNamespace.delete(namespace);
    return list.length - pending.length;
  }

  private apply(op: Operation): void {
    this.timers.delete(op.handle);
    if (op.status !== "pending") return; // cancelled in the meantime: never commits
    const now = this.clock.now();
    const entry = this.put(op.namespace, op.key, op.value, op.handle, now);
    if (entry) {
      op.status = "completed";
      op.appliedAtMs = now;
      op.measuredDelayMs = now - op.acceptedAtMs;
    } else {
      op.status = "failed";
      op.failedAtMs = now;
      op.failure = `namespace ${op.namespace} already holds ${MAX_KEYS_PER_NAMESPACE} keys`;
    }
    this.settle(op);
  }

  private put(namespace: string, key: string, value: JsonValue, writtenBy: string, at = this.clock.now()): StoredEntry | null {
    let space = this.values.get(namespace);
    if (!space) {
      space = new Map();
      this.values.set(namespace, space);
    }
    const previous = space.get(key);
    if (!previous && space.size >= MAX_KEYS_PER_NAMESPACE) return null;
    const entry: StoredEntry = { key, value, version: (previous?.version ?? 0) + 1, writtenBy, writtenAtMs: at };
    space.set(key, entry);
    return entry;
  }

  private settle(op: Operation): void {
    const waiting = this.waiters.get(op.handle);
    this.waiters.delete(op.handle);
    for (const resolve of waiting ?? []) resolve(op);
  }
}
