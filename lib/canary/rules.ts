import type { Operation, StoredEntry } from "../delayed-write/delayed-write-schemas";
import type { CanaryCondition, CanarySurface } from "./config";

// The canary reset check's rules, pure: what each condition is expected to let through, where a
// canary shows in what the service answered, and whether a reset held.

/**
 * Expected: B finds A's canary only under `shared`, where nothing separates the runs. Namespacing
 * puts B where A never wrote; a verified reset cancels A's pending operations, restores the
 * namespace and forgets its finished operations before B begins.
 */
export function canaryExpectedFound(condition: CanaryCondition): boolean {
  return condition === "shared";
}

/** The expectation held when B found the canary exactly when it was expected to. */
export function canaryExpectationHeld(input: { expectedFound: boolean; found: boolean }): boolean {
  return input.expectedFound === input.found;
}

/** Whether a stored JSON value carries the canary anywhere inside it. */
export function carriesCanary(value: unknown, canary: string): boolean {
  return JSON.stringify(value ?? null).includes(canary);
}

export type CanaryMatch =
  | { namespace: string; key: string; value: unknown; writtenBy: string }
  | { namespace: string; handle: string; key: string; status: Operation["status"]; value: unknown };

/** What B's searches answered: each namespace it can reach, with its entries, operations and pending operations. */
export interface CanarySearch {
  namespaces: ReadonlyArray<{
    namespace: string;
    entries: readonly StoredEntry[];
    operations: readonly Operation[];
    pending: readonly Operation[];
  }>;
}

export interface CanarySurfaceFinding {
  surface: CanarySurface;
  found: boolean;
  /** The matching answers (key and value, or operation handle), or what was searched when nothing matched. */
  evidence: { matches: CanaryMatch[]; searched: { namespaces: string[]; items: number } };
}

/** Where the canary shows in B's search, surface by surface. */
export function findCanary(canary: string, search: CanarySearch): CanarySurfaceFinding[] {
  const namespaces = search.namespaces.map((n) => n.namespace);
  const values = search.namespaces.flatMap((n) =>
    n.entries
      .filter((e) => carriesCanary(e.value, canary))
      .map((e): CanaryMatch => ({ namespace: n.namespace, key: e.key, value: e.value, writtenBy: e.writtenBy })),
  );
  const ops = (pick: (n: CanarySearch["namespaces"][number]) => readonly Operation[]) =>
    search.namespaces.flatMap((n) =>
      pick(n)
        .filter((op) => carriesCanary(op.value, canary))
        .map((op): CanaryMatch => ({ namespace: n.namespace, handle: op.handle, key: op.key, status: op.status, value: op.value })),
    );
  const count = (pick: (n: CanarySearch["namespaces"][number]) => readonly unknown[]) =>
    search.namespaces.reduce((sum, n) => sum + pick(n).length, 0);
  const finding = (surface: CanarySurface, matches: CanaryMatch[], items: number): CanarySurfaceFinding => ({
    surface,
    found: matches.length > 0,
    evidence: { matches, searched: { namespaces, items } },
  });
  return [
    finding(
      "values",
      values,
      count((n) => n.entries),
    ),
    finding(
      "operation_list",
      ops((n) => n.operations),
      count((n) => n.operations),
    ),
    finding(
      "pending_operations",
      ops((n) => n.pending),
      count((n) => n.pending),
    ),
  ];
}

/** One place A planted the canary. */
export interface CanaryPlant {
  /** namespace_keys: every key of A's namespace; pending_operation: a delayed write not yet applied; shared_space: the key space the condition lets runs share. */
  place: "namespace_keys" | "pending_operation" | "shared_space";
  namespace: string;
  key: string;
  handle: string;
}

/** What A planted that a surface can show: a value surface shows what landed, the operation list every write, the pending list the pending one. */
export function plantedFor(surface: CanarySurface, plants: readonly CanaryPlant[]): CanaryPlant[] {
  switch (surface) {
    case "values":
      return plants.filter((p) => p.place !== "pending_operation");
    case "operation_list":
      return [...plants];
    case "pending_operations":
      return plants.filter((p) => p.place === "pending_operation");
  }
}

/**
 * A verified reset held when it confirmed every pending operation cancelled (none can still land),
 * restored exactly the initial values, and left no operation to list.
 */
export function canaryResetVerified(input: {
  pendingAfter: number;
  remainingOperations: number;
  entries: ReadonlyArray<{ key: string; value: unknown }>;
  initial: Readonly<Record<string, unknown>>;
}): boolean {
  const keys = Object.keys(input.initial);
  return (
    input.pendingAfter === 0 &&
    input.remainingOperations === 0 &&
    input.entries.length === keys.length &&
    input.entries.every((e) => keys.includes(e.key) && JSON.stringify(e.value) === JSON.stringify(input.initial[e.key]))
  );
}
