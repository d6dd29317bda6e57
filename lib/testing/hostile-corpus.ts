// A corpus of malformed, hostile and oversize requests to every writing route (and the reading
// routes' queries and paths), generated from one valid body per route by mutating each field in
// turn: text PostgreSQL cannot store, numbers past their column, times it refuses, wrong types,
// unknown and NUL keys; and bodies that are not JSON, mislabelled, too deep or too large (also
// chunked). e2e/hostile-input.spec.ts checks that none answers 5xx and that the good run of every
// mixed ingest batch is stored; `npm run bench:hostile` times the same corpus and measures how long
// each request held the web server's thread. Deterministic: the same targets give the same corpus.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Role } from "../auth/permissions";
import { AGENTDOJO_RUNS } from "./importer-fixtures";

export type Caller = Role | "anonymous";

export interface HostileRequest {
  /** What is wrong with it, e.g. `POST /api/v1/evaluations body.name + NUL`. */
  name: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  as: Caller;
  /** JSON text (sent as application/json unless contentType says otherwise), raw bytes, or a body streamed in chunks of unknown length. */
  body?: string | Uint8Array | { chunks: number; chunkBytes: number };
  contentType?: string | null;
  /** A mixed ingest batch: this good run must be stored whatever happens to the bad one. */
  goodRun?: string;
}

/** Ids the corpus aims at: an evaluation, experiment, protocol and user of its own (it writes to them), and the instance's experiment, run and trace (it only reads them). */
export interface CorpusTargets {
  evaluationId: string;
  /** The corpus's own experiment: its name, notes and exclusion rule are written to. */
  ownExperimentId: string;
  protocolId: string;
  /** A throwaway account: the corpus's user-route requests may change it. */
  userId: string;
  experimentId: string;
  runId: string;
  traceId: string;
  effectId: string;
}

const NUL = "\u0000";
const HIGH = "\ud800";
const LOW = "\udc00";
const UNKNOWN_UUID = "00000000-0000-4000-8000-00000000dead";
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One changed value of a body, with the field it changed. */
interface Mutation {
  field: string;
  what: string;
  body: Json;
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  const copy = structuredClone(root);
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** Every leaf and object of `value`, with its path. */
function nodes(value: Json, path: (string | number)[] = []): { path: (string | number)[]; value: Json }[] {
  const children = Array.isArray(value)
    ? value.map((v, i) => nodes(v, [...path, i]))
    : value && typeof value === "object"
      ? Object.entries(value).map(([k, v]) => nodes(v, [...path, k]))
      : [];
  return [{ path, value }, ...children.flat()];
}

const STRING_VALUES: [string, (s: string) => Json][] = [
  ["+ NUL", (s) => `${s}${NUL}`],
  ["NUL only", () => NUL],
  ["+ lone high surrogate", (s) => `${s}${HIGH}`],
  ["lone low surrogate first", (s) => `${LOW}${s}`],
  ["100,000 characters", (s) => s.padEnd(100_000, "x")],
  ["empty", () => ""],
  ["whitespace", () => " \t\n "],
  ["a number", () => 1],
  ["null", () => null],
  ["an object", () => ({ nested: "x" })],
];
const TIME_VALUES: [string, Json][] = [
  ["year 0000", "0000-01-01T00:00:00Z"],
  ["offset +16:00", "2026-12-01T10:00:00+16:00"],
  ["30 February", "2026-02-30T10:00:00Z"],
  ["year 275760", "275760-09-13T00:00:00Z"],
  ["nanoseconds at -15:59", "9999-12-31T23:59:59.999999999-15:59"],
];
const DATE_VALUES: [string, Json][] = [
  ["year 0000", "0000-01-01"],
  ["30 February", "2026-02-30"],
  ["year 10000", "10000-01-01"],
];
const NUMBER_VALUES: [string, Json][] = [
  ["2^31", 2 ** 31],
  ["2^40", 2 ** 40],
  ["2^53 - 1", Number.MAX_SAFE_INTEGER],
  ["1e308", 1e308],
  ["-1", -1],
  ["0.5", 0.5],
  ["a numeric string", "1"],
];

/** The mutations of a body: each field changed in turn, and keys added. */
function mutations(body: Json): Mutation[] {
  const out: Mutation[] = [];
  for (const { path, value } of nodes(body)) {
    const field = path.join(".") || "(body)";
    const change = (what: string, to: Json | undefined) =>
      out.push({ field, what, body: path.length === 0 ? (to as Json) : setAt(body, path, to) });
    if (typeof value === "string") {
      for (const [what, make] of STRING_VALUES) change(what, make(value));
      if (ISO_TIME.test(value)) for (const [what, to] of TIME_VALUES) change(what, to);
      if (ISO_DATE.test(value)) for (const [what, to] of DATE_VALUES) change(what, to);
    } else if (typeof value === "number") {
      for (const [what, to] of NUMBER_VALUES) change(what, to);
    } else if (typeof value === "boolean") {
      change("the string true", "true");
    } else if (Array.isArray(value)) {
      change("empty list", []);
      change("an object", {});
      if (value.length > 0) change("its item twice", [...value, value[0]!]);
    } else if (value && typeof value === "object") {
      change("an unknown key", { ...value, unexpectedField: 1 });
      change("a key with NUL", { ...value, [`k${NUL}`]: "x" });
      change("a key with a lone surrogate", { ...value, [`k${HIGH}`]: "x" });
      change("__proto__ key", JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(value).slice(1)}`) as Json);
      change("a list", []);
    }
    if (path.length > 0) change("null", null);
  }
  return out;
}

let twentyMb: string | undefined;
/** One 20 MB body, made once: every route gets the same string. */
const twentyMegabytes = () => (twentyMb ??= `{"padding": "${"x".repeat(20 * 1024 * 1024)}"}`);

/** Bodies that are wrong before any schema sees them. */
function transportCases(method: HostileRequest["method"], path: string, as: Caller, valid: string): HostileRequest[] {
  const named = (what: string, request: Partial<HostileRequest>): HostileRequest => ({
    name: `${method} ${path} ${what}`,
    method,
    path,
    as,
    ...request,
  });
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  return [
    named("not JSON", { body: "{not json" }),
    named("truncated JSON", { body: valid.slice(0, Math.max(1, Math.floor(valid.length / 2))) }),
    named("JSON null", { body: "null" }),
    named("a JSON list", { body: "[]" }),
    named("a JSON string", { body: '"x"' }),
    named("nested 100,000 deep", { body: deep(100_000) }),
    named("a field nested 70 deep", { body: `{"x": ${deep(70)}}` }),
    named("valid JSON as text/plain", { body: valid, contentType: "text/plain" }),
    named("valid JSON with no content type", { body: valid, contentType: null }),
    named("valid JSON as a form", { body: valid, contentType: "application/x-www-form-urlencoded" }),
    named("a byte-order mark and JSON", { body: `\ufeff${valid}` }),
    named("invalid UTF-8", { body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }),
    named("UTF-16 JSON", { body: new Uint8Array(Buffer.from(`\ufeff${valid}`, "utf16le")) }),
    named("an escaped NUL in a key", { body: `{"\\u0000": 1}` }),
    named("20 MB", { body: twentyMegabytes() }),
    named("60 MB chunked", { body: { chunks: 60, chunkBytes: 1024 * 1024 } }),
  ];
}

interface WriteRoute {
  method: HostileRequest["method"];
  path: string;
  as: Caller;
  valid: Json;
}

function writeRoutes(t: CorpusTargets): WriteRoute[] {
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

/** Paths of reading routes with a parameter in their path. */
function readPaths(t: CorpusTargets): string[] {
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

const BAD_IDS: [string, string][] = [
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
function queryCases(t: CorpusTargets): HostileRequest[] {
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

/**
 * The corpus against `targets`. `seedRuns` are what the runner ingests first (the effect and run
 * the resolution and canary routes name). Mixed ingest batches name their good run.
 */
export function hostileCorpus(t: CorpusTargets): HostileRequest[] {
  const corpus: HostileRequest[] = [];
  for (const route of writeRoutes(t)) {
    for (const m of mutations(route.valid))
      corpus.push({
        name: `${route.method} ${route.path} body.${m.field} ${m.what}`,
        method: route.method,
        path: route.path,
        as: route.as,
        body: JSON.stringify(m.body),
      });
    corpus.push(...transportCases(route.method, route.path, route.as, JSON.stringify(route.valid)));
  }
  // Ingest: every mutation of a full run, sent beside a good run that must be stored.
  const ingestPath = `/api/v1/evaluations/${t.evaluationId}/runs`;
  let good = 0;
  for (const m of mutations(fullRun("bad"))) {
    const goodRun = `good-${++good}`;
    corpus.push({
      name: `POST ${ingestPath} runs.0.${m.field} ${m.what}`,
      method: "POST",
      path: ingestPath,
      as: "editor",
      body: JSON.stringify({ runs: [m.body, fullRun(goodRun)] }),
      goodRun,
    });
  }
  corpus.push(...transportCases("POST", ingestPath, "editor", JSON.stringify({ runs: [fullRun("bad")] })));
  // The pattern that froze the server, against an effect whose tool is 10,000 `a`s, then its policy.
  const frozen = `good-${++good}`;
  corpus.push({
    name: `POST ${ingestPath} a tool of 10,000 a's`,
    method: "POST",
    path: ingestPath,
    as: "editor",
    body: JSON.stringify({
      runs: [
        {
          ...(fullRun(frozen) as object),
          effects: [{ ...((fullRun(frozen) as { effects: object[] }).effects[0] as object), tool: "a".repeat(200) }],
        },
      ],
    }),
    goodRun: frozen,
  });
  for (const stars of [5, 16, 17]) {
    corpus.push({
      name: `PUT effect-policy ${"*a".repeat(stars)}*b`,
      method: "PUT",
      path: `/api/v1/evaluations/${t.evaluationId}/effect-policy`,
      as: "editor",
      body: JSON.stringify({ tools: { [`${"*a".repeat(stars)}*b`]: "external" } }),
    });
  }
  // Paths.
  for (const template of readPaths(t))
    for (const [id, what] of BAD_IDS)
      corpus.push({ name: `GET ${template} id ${what}`, method: "GET", path: template.replace("ID", id), as: "viewer" });
  corpus.push(...queryCases(t));
  // The import route: a body that is no log, and one streamed past nothing in particular.
  corpus.push({
    name: "POST /api/v1/imports a file name with NUL",
    method: "POST",
    path: "/api/v1/imports?file=a%00b.json",
    as: "editor",
    body: "{}",
  });
  corpus.push({
    name: "POST /api/v1/imports an evaluation name with a lone surrogate",
    method: "POST",
    path: "/api/v1/imports?file=a.json&evaluation=x%ED%A0%80",
    as: "editor",
    body: "{}",
  });
  corpus.push({
    name: "POST /api/v1/imports not a log",
    method: "POST",
    path: "/api/v1/imports?file=a.json",
    as: "editor",
    body: "not a log",
    contentType: "application/octet-stream",
  });
  corpus.push({
    name: "POST /api/v1/imports 12 MB chunked",
    method: "POST",
    path: "/api/v1/imports?file=a.json",
    as: "editor",
    body: { chunks: 12, chunkBytes: 1024 * 1024 },
    contentType: "application/octet-stream",
  });
  corpus.push({
    name: "POST /api/v1/imports a valid 15 MB AgentDojo log",
    method: "POST",
    path: "/api/v1/imports?file=large.json&evaluation=hostile%20corpus%20large%20log",
    as: "editor",
    body: largeAgentDojoLog(),
    contentType: "application/octet-stream",
  });
  return corpus;
}

/** A real AgentDojo log (the first fixture) whose first message is padded to 15 MB: a large log that is not hostile at all. */
function largeAgentDojoLog(): Uint8Array {
  const file = readdirSync(AGENTDOJO_RUNS)
    .filter((name) => name.endsWith(".json"))
    .sort()[0]!;
  const log = JSON.parse(readFileSync(path.join(AGENTDOJO_RUNS, file), "utf8")) as { messages: { content: unknown }[] };
  log.messages[0]!.content = `${String(log.messages[0]!.content)} ${"padding ".repeat((15 * 1024 * 1024) / 8)}`;
  return new Uint8Array(Buffer.from(JSON.stringify(log)));
}

/** The runs `hostileCorpus`'s targets need before it runs: one run `seed` with effect `e1` (CorpusTargets.effectId). */
export const seedRuns = (): Json => ({ runs: [fullRun("seed")] });

export interface HostileResult {
  request: HostileRequest;
  status: number;
  ms: number;
  /** The answer's first 300 characters. */
  answer: string;
}

/** Sends one request of the corpus; `headersOf` gives a caller's credentials. A connection the server drops counts as status 0. */
export async function sendHostile(
  origin: string,
  request: HostileRequest,
  headersOf: (as: Caller) => Record<string, string>,
): Promise<HostileResult> {
  const headers: Record<string, string> = { ...headersOf(request.as) };
  if (request.body !== undefined && request.contentType !== null) headers["content-type"] = request.contentType ?? "application/json";
  let body: BodyInit | undefined;
  if (typeof request.body === "string" || request.body instanceof Uint8Array) body = request.body as BodyInit;
  else if (request.body) {
    const { chunks, chunkBytes } = request.body;
    const chunk = new Uint8Array(chunkBytes).fill(0x20);
    let sent = 0;
    body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(chunk);
        else controller.close();
      },
    });
  }
  const started = performance.now();
  try {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    const answer = Buffer.from(await response.arrayBuffer())
      .subarray(0, 300)
      .toString("utf8");
    return { request, status: response.status, ms: performance.now() - started, answer };
  } catch (error) {
    return { request, status: 0, ms: performance.now() - started, answer: String((error as Error).cause ?? error) };
  }
}

type HeadersOf = (as: Caller) => Record<string, string>;

async function call(origin: string, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * What the corpus writes to, made through the API: an evaluation holding the run `seed` (effect
 * `e1`), a small experiment, a protocol, a throwaway viewer account. The experiment it reads, its
 * run and a trace are the instance's own.
 */
export async function prepareCorpusTargets(
  origin: string,
  headersOf: HeadersOf,
  instance: { experimentId: string; runId: string; traceId: string },
): Promise<CorpusTargets> {
  const tag = Date.now().toString(36);
  const { id: evaluationId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/evaluations", {
    name: `hostile corpus ${tag}`,
    effectPolicy: { tools: { "bank.transfer": "async_handle" } },
  })) as { id: string };
  await call(origin, headersOf("editor"), "POST", `/api/v1/evaluations/${evaluationId}/runs`, seedRuns());
  const { id: protocolId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/protocols", { name: `hostile corpus ${tag}` })) as {
    id: string;
  };
  const { id: userId } = (await call(origin, headersOf("admin"), "POST", "/api/v1/users", {
    email: `throwaway-${tag}@example.test`,
    password: "a throwaway password",
    role: "viewer",
  })) as { id: string };
  const { id: ownExperimentId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/experiments", {
    name: `hostile corpus ${tag}`,
    delaysMs: [0],
    schedules: 1,
    repetitions: 1,
  })) as { id: string };
  return { evaluationId, ownExperimentId, protocolId, userId, effectId: "e1", ...instance };
}

/** The corpus's evaluation's runs by externalId, read through the API page by page. */
async function storedRuns(origin: string, headers: Record<string, string>, evaluationId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = (await call(
      origin,
      headers,
      "GET",
      `/api/v1/evaluations/${evaluationId}/runs?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
    )) as { runs: { externalId: string }[]; nextCursor: string | null };
    for (const run of page.runs) ids.add(run.externalId);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** After the corpus: the mixed batches' good runs not stored, and runs stored that no request meant to store. */
export async function checkGoodRuns(
  origin: string,
  headersOf: HeadersOf,
  evaluationId: string,
  results: readonly HostileResult[],
): Promise<{ missing: string[]; unexpected: string[] }> {
  const stored = await storedRuns(origin, headersOf("viewer"), evaluationId);
  const good = results.flatMap((r) => (r.request.goodRun ? [r.request.goodRun] : []));
  // "bad" is stored when a mutation leaves it valid (an empty list, an item twice).
  const expected = new Set(["seed", "bad", ...good]);
  return { missing: good.filter((id) => !stored.has(id)), unexpected: [...stored].filter((id) => !expected.has(id)) };
}
