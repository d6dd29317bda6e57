// The hostile corpus route by route: one valid body per writing route, a full ingest run, the
// reading routes' paths with a parameter, bad ids for them, and the lists' query cases.
import { HIGH, ISO_TIME, NUL, type Json } from "./mutations";
import type { Caller, CorpusTargets, HostileRequest } from "./requests";

const UNKNOWN_UUID = "00000000-0000-4000-8000-00000000dead";
/** The live run the corpus opens first (targets.ts): its events and score routes are written to; once scored it is a stored run. */
export const LIVE_SEED = "live-seed";

interface WriteRoute {
  method: HostileRequest["method"];
  path: string;
  as: Caller;
  valid: Json;
}

export function writeRoutes(t: CorpusTargets): WriteRoute[] {
  const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s)).toISOString();
  const rule = {
    classes: { completed: "keep", agent_failure: "keep", protocol_stop: "keep", environment_failure: "exclude", missing_evidence: "keep" },
    unresolved: "exclude",
    threshold: 0.8,
  };
  const ledger = { code: "P", sourceLocation: "Sec. 3", basis: "a basis", citations: ["p. 4"], sourcesReadOn: "2026-11-30" };
  return [
    {
      method: "POST",
      path: "/api/v1/evaluations",
      as: "editor",
      valid: {
        name: "hostile probe",
        description: "d",
        harness: "h",
        benchmark: "b",
        effectPolicy: { tools: { "bank.*": "external" } },
        exclusionRule: rule,
      },
    },
    {
      method: "PUT",
      path: `/api/v1/evaluations/${t.evaluationId}/effect-policy`,
      as: "editor",
      valid: { tools: { "bank.read": "read_only", "bank.*a*b": "external" } },
    },
    {
      method: "PUT",
      path: `/api/v1/evaluations/${t.evaluationId}/exclusion-rule`,
      as: "editor",
      valid: { baseVersion: 1, reason: "r", rule },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/effects/${t.effectId}/resolutions`,
      as: "editor",
      valid: { status: "completed", at: at(40), evidence: { ledger: "l" }, verifiedBy: "v", runExternalId: "seed" },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/runs/seed/resets/canary`,
      as: "editor",
      valid: { surface: "s", planted: "p", found: false, evidence: "e", at: at(3) },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/live-runs`,
      as: "editor",
      valid: { externalId: LIVE_SEED, taskId: "t1", attempt: 1, startedAt: at(0), groupId: "g" },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/live-runs/${LIVE_SEED}/events`,
      as: "editor",
      valid: {
        events: [
          {
            eventId: "req",
            type: "effect_requested",
            at: at(1),
            effectId: "live-e1",
            tool: "bank.transfer",
            surface: "acct:1",
            handle: "h",
            callId: "c",
            arguments: { amount: 5 },
            public: false,
          },
          { eventId: "status", type: "effect_status", at: at(2), effectId: "live-e1", status: "pending", evidence: { poll: 1 } },
          { eventId: "touch", type: "touch", at: at(3), surface: "acct:1", op: "read", public: false },
          { eventId: "reset", type: "reset", at: at(4), surface: "acct:1", verified: true, evidence: "read back" },
        ],
      },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/live-runs/${LIVE_SEED}/score`,
      as: "editor",
      valid: { endpointLabel: "success", score: 1, at: at(5), terminalLabel: "success", threshold: 0.5, scoredOn: ["acct:1"] },
    },
    {
      method: "POST",
      path: `/api/v1/evaluations/${t.evaluationId}/tool-suggestions`,
      as: "editor",
      valid: {
        source: "mcp:bank",
        tools: [
          {
            tool: "bank.read",
            suggestedClass: "read_only",
            reason: "readOnlyHint",
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          },
        ],
      },
    },
    {
      method: "POST",
      path: "/api/v1/experiments",
      as: "editor",
      valid: { name: "hostile probe", notes: "n", delaysMs: [0], schedules: 1, repetitions: 1, concurrency: 1 },
    },
    { method: "PATCH", path: `/api/v1/experiments/${t.ownExperimentId}`, as: "editor", valid: { name: "n", notes: "n" } },
    {
      method: "PUT",
      path: `/api/v1/experiments/${t.ownExperimentId}/exclusion-rule`,
      as: "editor",
      valid: { baseVersion: 1, reason: "r", rule },
    },
    {
      method: "POST",
      path: "/api/v1/protocols",
      as: "editor",
      valid: { name: "hostile protocol", benchmarkVersion: "1", scope: "s", sources: ["https://example.org/a"] },
    },
    {
      method: "PATCH",
      path: `/api/v1/protocols/${t.protocolId}`,
      as: "editor",
      valid: { name: "renamed", scope: "s", expectedVersion: 1, reason: "r" },
    },
    {
      method: "PUT",
      path: `/api/v1/protocols/${t.protocolId}/codes`,
      as: "reviewer",
      valid: { field: "endpoint", expectedVersion: null, ledger, reason: "r" },
    },
    {
      method: "PUT",
      path: `/api/v1/protocols/${t.protocolId}/consensus`,
      as: "editor",
      valid: { field: "endpoint", expectedVersion: null, code: "P", rationale: "r", reason: "r" },
    },
    {
      method: "POST",
      path: `/api/v1/protocols/${t.protocolId}/completion-argument`,
      as: "editor",
      valid: {
        expectedVersion: null,
        reason: "r",
        argument: {
          questions: { outcome: { answer: "a", sourceLocation: "s", citations: ["c"], sourcesReadOn: "2026-11-30" } },
          routes: [
            {
              kind: "queues",
              description: "d",
              scope: "out",
              scopeReason: "r",
              treatment: "bounded",
              treatmentNote: "n",
              evidence: [{ kind: "experiment", id: t.experimentId, note: "n" }],
            },
          ],
          evidence: [{ kind: "evaluation", id: t.evaluationId }],
        },
      },
    },
    { method: "POST", path: `/api/v1/review-codes/${UNKNOWN_UUID}/restore`, as: "reviewer", valid: { version: 1, reason: "r" } },
    {
      method: "POST",
      path: "/api/v1/share-links",
      as: "editor",
      valid: { resourceType: "experiment", resourceId: t.experimentId, mode: "frozen", expiresInDays: 3, note: "n" },
    },
    { method: "PUT", path: "/api/v1/settings/share-links", as: "admin", valid: { disabled: false } },
    { method: "POST", path: "/api/v1/api-keys", as: "viewer", valid: { name: "k" } },
    {
      method: "POST",
      path: "/api/v1/users",
      as: "admin",
      valid: { email: "hostile@example.test", password: "a long enough password", name: "n", role: "viewer" },
    },
    { method: "PATCH", path: `/api/v1/users/${t.userId}`, as: "admin", valid: { role: "viewer" } },
    { method: "POST", path: `/api/v1/users/${t.userId}/password`, as: "admin", valid: { password: "another long password" } },
    { method: "POST", path: `/api/v1/users/${t.userId}/deactivate`, as: "admin", valid: { reason: "r" } },
    {
      method: "POST",
      path: "/api/v1/setup",
      as: "anonymous",
      valid: { email: "first@example.test", password: "a long enough password", name: "n" },
    },
  ];
}

/** A run with every field the ingest schema stores, as `externalId`. */
export function fullRun(externalId: string): Json {
  const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s)).toISOString();
  return {
    externalId,
    taskId: "task",
    groupId: "g",
    attempt: 1,
    startedAt: at(0),
    endedAt: at(9),
    scoredAt: at(8),
    endpointLabel: "success",
    terminalLabel: "success",
    score: 1,
    threshold: 0.5,
    scoredOn: ["service:s"],
    labels: { security: "failure" },
    toolCalls: [{ callId: "c1", tool: "bank.transfer", at: at(1), arguments: { to: "a" }, outcome: "ok", error: "e" }],
    effects: [
      {
        effectId: "e1",
        tool: "bank.transfer",
        callId: "c1",
        tracePosition: 0,
        arguments: { amount: "1" },
        surface: "service:s",
        controller: "c",
        handle: "h",
        requestedAt: at(1),
        acknowledgedAt: at(2),
        statusAtScoring: "pending",
        possibleTransitions: ["completed"],
        relevantUntil: at(30),
        crossRunRoute: "r",
        public: false,
        notes: "n",
        resolution: { status: "completed", at: at(3), evidence: { ledger: "l" }, verifiedBy: "v" },
      },
    ],
    touches: [{ surface: "service:s", op: "read", at: at(1), public: false }],
    resets: [
      {
        surface: "service:s",
        at: at(7),
        verified: true,
        evidence: "e",
        canary: { surface: "service:s", planted: "p", found: false, evidence: "e" },
      },
    ],
  };
}

/** The runs `hostileCorpus`'s targets need before it runs: one run `seed` with effect `e1` (CorpusTargets.effectId). */
export const seedRuns = (): Json => ({ runs: [fullRun("seed")] });

/** Paths of reading routes with a parameter in their path. */
export function readPaths(t: CorpusTargets): string[] {
  return [
    "/api/v1/evaluations/ID",
    "/api/v1/evaluations/ID/summary",
    "/api/v1/evaluations/ID/statistics",
    "/api/v1/evaluations/ID/runs",
    "/api/v1/experiments/ID",
    "/api/v1/experiments/ID/summary",
    "/api/v1/experiments/ID/runs",
    "/api/v1/runs/ID",
    "/api/v1/protocols/ID",
    "/api/v1/traces/ID",
    "/api/v1/shared/ID",
    `/api/v1/evaluations/${t.evaluationId}/effects/ID/resolutions`,
    "/experiments/ID",
    "/evaluations/ID",
    "/runs/ID",
    "/protocols/ID",
    "/traces/ID",
    "/s/ID",
  ];
}

export const BAD_IDS: [string, string][] = [
  ["%00", "NUL"],
  ["%ED%A0%80", "an encoded lone surrogate"],
  ["%FF%FE", "invalid UTF-8"],
  ["a".repeat(10_000), "10,000 characters"],
  ["..%2F..%2Fetc", "an encoded slash"],
  ["00000000-0000-4000-8000-00000000DEAD", "an upper-case UUID"],
  ["9223372036854775808", "past bigint"],
  ["-1", "a negative number"],
];

const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString("base64url");

/** Query strings for the lists: each parameter bad in turn, and crafted cursors. */
export function queryCases(t: CorpusTargets): HostileRequest[] {
  const lists: [string, Record<string, string>, unknown[]][] = [
    [
      `/api/v1/evaluations/${t.evaluationId}/runs`,
      { finality: "final", reason: "pending_at_scoring", tool: "bank.transfer", unit: "1", inherited: "none", limit: "10" },
      ["1"],
    ],
    ["/api/v1/evaluations", { name: "x", limit: "10" }, ["2026-12-01T00:00:00.000Z", UNKNOWN_UUID]],
    ["/api/v1/experiments", { state: "completed", name: "x", limit: "10" }, ["2026-12-01T00:00:00.000Z", UNKNOWN_UUID]],
    [`/api/v1/experiments/${t.experimentId}/runs`, { condition: "snapshot", delay: "25", limit: "10" }, ["snapshot", 1, 25, 1, "a", "x"]],
    [
      "/api/v1/traces",
      { source: "imported", suite: "banking", task: "user_task_1", limit: "10" },
      ["banking", "user", 1, "user_task_1", UNKNOWN_UUID],
    ],
    ["/api/v1/effects", { limit: "10" }, [true, UNKNOWN_UUID, 1, UNKNOWN_UUID]],
    ["/evaluations", { name: "x" }, ["2026-12-01T00:00:00.000Z", UNKNOWN_UUID]],
    ["/traces", { task: "x" }, ["banking", "user", 1, "user_task_1", UNKNOWN_UUID]],
    [`/experiments/${t.experimentId}/runs`, { delay: "25" }, ["snapshot", 1, 25, 1, "a", "x"]],
  ];
  const cases: HostileRequest[] = [];
  for (const [path, params, cursor] of lists) {
    const get = (what: string, query: string): HostileRequest => ({
      name: `GET ${path} ${what}`,
      method: "GET",
      path: `${path}?${query}`,
      as: "viewer",
    });
    for (const [key, value] of Object.entries(params)) {
      for (const [bad, what] of [
        [`${value}%00`, "+ NUL"],
        [`${value}%ED%A0%80`, "+ an encoded lone surrogate"],
        [`${value}%FF`, "+ invalid UTF-8"],
        ["9".repeat(25), "25 nines"],
        ["x".repeat(10_000), "10,000 characters"],
      ] as const) {
        cases.push(get(`query.${key} ${what}`, `${key}=${bad}`));
      }
      cases.push(get(`query.${key} twice`, `${key}=${value}&${key}=${value}`));
    }
    const crafted: [string, unknown][] = [
      ["NUL in a cursor", cursor.map((c) => (typeof c === "string" ? `${c}${NUL}` : c))],
      ["a lone surrogate in a cursor", cursor.map((c) => (typeof c === "string" ? `${c}${HIGH}` : c))],
      ["2^40 in a cursor", cursor.map((c) => (typeof c === "number" ? 2 ** 40 : c))],
      ["year 0000 in a cursor", cursor.map((c) => (typeof c === "string" && ISO_TIME.test(c) ? "0000-01-01T00:00:00.000Z" : c))],
      ["a past-bigint id in a cursor", cursor.map((c) => (c === "1" ? "9223372036854775808" : c))],
      ["a cursor of the wrong shape", { a: 1 }],
    ];
    for (const [what, position] of crafted) cases.push(get(what, `cursor=${cursorOf(position)}`));
    cases.push(get("a cursor that is not base64 JSON", "cursor=%%%"));
    cases.push(get("an unknown parameter", "colour=blue"));
  }
  return cases;
}
