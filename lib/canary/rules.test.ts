import { describe, expect, it } from "vitest";
import type { Operation, StoredEntry } from "../delayed-write/delayed-write-schemas";
import { canaryExpectationHeld, canaryExpectedFound, canaryResetVerified, findCanary, plantedFor, type CanaryPlant } from "./rules";

const CANARY = "canary-1234";
const entry = (key: string, value: unknown, writtenBy = "op_1"): StoredEntry => ({
  key,
  value: value as StoredEntry["value"],
  version: 1,
  writtenBy,
  writtenAtMs: 1,
});
const op = (handle: string, value: unknown, status: Operation["status"] = "completed"): Operation => ({
  handle,
  namespace: "ns",
  key: "k",
  value: value as Operation["value"],
  delayMs: 0,
  mode: "sync",
  status,
  acceptedAtMs: 0,
  dueAtMs: 0,
  ackAtMs: null,
  appliedAtMs: null,
  cancelledAtMs: null,
  failedAtMs: null,
  failure: null,
  measuredDelayMs: null,
});

describe("the canary expectation", () => {
  it("expects B to find A's canary under shared state only", () => {
    expect(canaryExpectedFound("shared")).toBe(true);
    expect(canaryExpectedFound("namespaced")).toBe(false);
    expect(canaryExpectedFound("verified_reset")).toBe(false);
  });

  it("holds when found matches expected, both ways, and fails otherwise", () => {
    expect(canaryExpectationHeld({ expectedFound: true, found: true })).toBe(true);
    expect(canaryExpectationHeld({ expectedFound: false, found: false })).toBe(true);
    expect(canaryExpectationHeld({ expectedFound: false, found: true })).toBe(false); // a reset that leaked
    expect(canaryExpectationHeld({ expectedFound: true, found: false })).toBe(false); // the check could not see a planted canary
  });
});

describe("findCanary", () => {
  it("reports each surface with the matching key and value or operation handle, nested values included", () => {
    const findings = findCanary(CANARY, {
      namespaces: [
        {
          namespace: "run",
          entries: [entry("a", { canary: CANARY }), entry("b", "clean")],
          operations: [op("op_a", { canary: CANARY }), op("op_x", "clean")],
          pending: [],
        },
        {
          namespace: "space",
          entries: [entry("notes", { deep: [{ note: `see ${CANARY}` }] }, "op_n")],
          operations: [],
          pending: [op("op_p", { canary: CANARY }, "pending")],
        },
      ],
    });
    expect(findings).toEqual([
      {
        surface: "values",
        found: true,
        evidence: {
          matches: [
            { namespace: "run", key: "a", value: { canary: CANARY }, writtenBy: "op_1" },
            { namespace: "space", key: "notes", value: { deep: [{ note: `see ${CANARY}` }] }, writtenBy: "op_n" },
          ],
          searched: { namespaces: ["run", "space"], items: 3 },
        },
      },
      {
        surface: "operation_list",
        found: true,
        evidence: {
          matches: [{ namespace: "run", handle: "op_a", key: "k", status: "completed", value: { canary: CANARY } }],
          searched: { namespaces: ["run", "space"], items: 2 },
        },
      },
      {
        surface: "pending_operations",
        found: true,
        evidence: {
          matches: [{ namespace: "space", handle: "op_p", key: "k", status: "pending", value: { canary: CANARY } }],
          searched: { namespaces: ["run", "space"], items: 1 },
        },
      },
    ]);
  });

  it("finds nothing where only other canaries or clean values are, and says what it searched", () => {
    const findings = findCanary(CANARY, {
      namespaces: [{ namespace: "b", entries: [entry("a", { canary: "canary-9999" })], operations: [], pending: [] }],
    });
    expect(findings.map((f) => [f.surface, f.found, f.evidence.searched.items])).toEqual([
      ["values", false, 1],
      ["operation_list", false, 0],
      ["pending_operations", false, 0],
    ]);
  });
});

describe("plantedFor", () => {
  const plants: CanaryPlant[] = [
    { place: "namespace_keys", namespace: "run", key: "k", handle: "op_1" },
    { place: "pending_operation", namespace: "run", key: "k", handle: "op_2" },
    { place: "shared_space", namespace: "space", key: "notes", handle: "op_3" },
  ];
  it("values show what landed, the operation list every write, the pending list the pending write", () => {
    expect(plantedFor("values", plants).map((p) => p.handle)).toEqual(["op_1", "op_3"]);
    expect(plantedFor("operation_list", plants).map((p) => p.handle)).toEqual(["op_1", "op_2", "op_3"]);
    expect(plantedFor("pending_operations", plants).map((p) => p.handle)).toEqual(["op_2"]);
  });
});

describe("canaryResetVerified", () => {
  const initial = { k: { initialisedBy: "B" } };
  const clean = { pendingAfter: 0, remainingOperations: 0, entries: [{ key: "k", value: { initialisedBy: "B" } }], initial };
  it("holds only with nothing pending, no operation left to list, and exactly the initial values", () => {
    expect(canaryResetVerified(clean)).toBe(true);
    expect(canaryResetVerified({ ...clean, pendingAfter: 1 })).toBe(false);
    expect(canaryResetVerified({ ...clean, remainingOperations: 1 })).toBe(false);
    expect(canaryResetVerified({ ...clean, entries: [{ key: "k", value: { canary: CANARY } }] })).toBe(false);
    expect(canaryResetVerified({ ...clean, entries: [...clean.entries, { key: "extra", value: 1 }] })).toBe(false);
    expect(canaryResetVerified({ pendingAfter: 0, remainingOperations: 0, entries: [], initial: {} })).toBe(true);
  });
});
