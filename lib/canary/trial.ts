import type { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { PAPER_TRACE, routedWrites } from "../replay/rules/trace";
import type { CanaryCondition } from "./config";
import {
  canaryExpectationHeld,
  canaryExpectedFound,
  canaryResetVerified,
  findCanary,
  plantedFor,
  type CanaryPlant,
  type CanarySurfaceFinding,
} from "./rules";

/** A's pending write is due long after B has searched: it is still pending then unless a reset cancelled it. */
export const CANARY_PENDING_DELAY_MS = 60_000;
/** The key in the shared key space that A writes its note to. */
const SPACE_KEY = "notes";

export interface CanaryResetEvidence {
  namespaces: Array<{
    namespace: string;
    cancelled: Array<{ handle: string; outcome: string }>;
    entries: Array<{ key: string; value: unknown }>;
    pendingOperations: number;
    purgedOperations: number;
    remainingOperations: number;
    verified: boolean;
  }>;
  verified: boolean;
}

export interface CanaryTrialResult {
  canary: string;
  plants: CanaryPlant[];
  reset: CanaryResetEvidence | null;
  surfaces: Array<CanarySurfaceFinding & { planted: CanaryPlant[]; expectedFound: boolean; held: boolean }>;
}

/** Each run's namespace and shared key space: shared by A and B unless the condition namespaces them. */
function runSpaces(prefix: string, condition: CanaryCondition, role: "A" | "B") {
  const base = condition === "namespaced" ? `${prefix}/${role}` : prefix;
  return { run: `${base}/run`, space: `${base}/space` };
}

/**
 * One canary trial against the delayed-write service over HTTP. Run A plants the canary in every
 * key of its namespace (the paper trace's keys), in a pending write, and in the shared key space;
 * the condition's reset runs (verified_reset: cancel and confirm every pending operation, restore
 * B's initial values, forget the finished operations, read it all back); run B lists every key,
 * the operation list and the pending operations of each namespace it can reach and looks for it.
 */
export async function runCanaryTrial(
  client: DelayedWriteClient,
  input: { namespacePrefix: string; condition: CanaryCondition; canary: string },
): Promise<CanaryTrialResult> {
  const { namespacePrefix, condition, canary } = input;
  const a = runSpaces(namespacePrefix, condition, "A");
  const b = runSpaces(namespacePrefix, condition, "B");
  const keys = routedWrites(PAPER_TRACE).map((w) => w.key);
  const planted = (place: CanaryPlant["place"]) => ({ canary, plantedBy: "A", place });

  const plants: CanaryPlant[] = [];
  for (const key of keys) {
    const { operation } = await client.write({ namespace: a.run, key, value: planted("namespace_keys"), delayMs: 0, mode: "sync" });
    plants.push({ place: "namespace_keys", namespace: a.run, key, handle: operation.handle });
  }
  const pending = await client.write({
    namespace: a.run,
    key: keys[0]!,
    value: planted("pending_operation"),
    delayMs: CANARY_PENDING_DELAY_MS,
    mode: "async",
  });
  plants.push({ place: "pending_operation", namespace: a.run, key: keys[0]!, handle: pending.operation.handle });
  const note = await client.write({ namespace: a.space, key: SPACE_KEY, value: planted("shared_space"), delayMs: 0, mode: "sync" });
  plants.push({ place: "shared_space", namespace: a.space, key: SPACE_KEY, handle: note.operation.handle });

  const reset =
    condition === "verified_reset"
      ? await verifiedReset(client, [
          { namespace: a.run, initial: Object.fromEntries(keys.map((key) => [key, { initialisedBy: "B" }])) },
          { namespace: a.space, initial: {} },
        ])
      : null;

  const namespaces = await Promise.all(
    [b.run, b.space].map(async (namespace) => {
      const [entries, operations, pendingOps] = await Promise.all([
        client.entries(namespace),
        client.operations(namespace),
        client.operations(namespace, "pending"),
      ]);
      return { namespace, entries: entries.entries, operations: operations.operations, pending: pendingOps.operations };
    }),
  );
  const expectedFound = canaryExpectedFound(condition);
  const surfaces = findCanary(canary, { namespaces }).map((finding) => ({
    ...finding,
    planted: plantedFor(finding.surface, plants),
    expectedFound,
    held: canaryExpectationHeld({ expectedFound, found: finding.found }),
  }));
  // Teardown after the search: what A left pending would otherwise land a minute later.
  for (const op of (await client.operationsUnder(`${namespacePrefix}/`, "pending")).operations) await client.cancel(op.handle);
  return { canary, plants, reset, surfaces };
}

async function verifiedReset(
  client: DelayedWriteClient,
  spaces: Array<{ namespace: string; initial: Record<string, { initialisedBy: string }> }>,
): Promise<CanaryResetEvidence> {
  const namespaces = [];
  for (const { namespace, initial } of spaces) {
    const pending = (await client.operations(namespace, "pending")).operations;
    const cancelled = [];
    for (const op of pending) cancelled.push({ handle: op.handle, outcome: (await client.cancel(op.handle)).outcome });
    const answer = await client.reset(namespace, initial, "purge");
    const remainingOperations = (await client.operations(namespace)).operations.length;
    const entries = answer.entries.map(({ key, value }) => ({ key, value }));
    namespaces.push({
      namespace,
      cancelled,
      entries,
      pendingOperations: answer.pendingOperations,
      purgedOperations: answer.purgedOperations ?? 0,
      remainingOperations,
      verified: canaryResetVerified({ pendingAfter: answer.pendingOperations, remainingOperations, entries, initial }),
    });
  }
  return { namespaces, verified: namespaces.every((n) => n.verified) };
}
