import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { request, type APIRequestContext } from "@playwright/test";
import { accounts, bearer } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";

// Every route handler (and page) as every kind of caller, against the built app: exactly which
// succeed. "Succeeds" means the request got past authorization: the route's own answer (2xx, or a
// 400/404/409 from a body or id chosen so that nothing is written); refused means 401 or 403.

const CALLERS = ["anonymous", "viewer", "reviewer", "editor", "admin", "editorApiKey", "revokedApiKey", "otherShareToken"] as const;
type Caller = (typeof CALLERS)[number];
const SIGNED_IN: Caller[] = ["viewer", "reviewer", "editor", "admin", "editorApiKey"];
const RUNS_EXPERIMENTS: Caller[] = ["editor", "admin", "editorApiKey"];
const ADMIN: Caller[] = ["admin"];
const CODERS: Caller[] = ["reviewer", "editor", "admin", "editorApiKey"];
const EVERYONE: Caller[] = [...CALLERS];

const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";
const UNKNOWN_UUID_2 = "00000000-0000-4000-8000-000000000001";

interface RouteCase {
  /** The route file's path template, e.g. /api/v1/users/[id]: every route file must have a case. */
  route: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: () => string;
  body?: unknown;
  /** Who gets past authorization, and the status the route then answers. */
  allowed: Caller[];
  status: number;
}

let shareToken = "";
let protocolId = "";
/** An evaluation with one run, and a share link of it: its runs open under the token for anyone. */
let evaluationId = "";
let evaluationShareToken = "";
const ROUTES: RouteCase[] = [
  { route: "/api/health", method: "GET", url: () => "/api/health", allowed: EVERYONE, status: 200 },
  // An empty OTLP export (no spans) is a success that stores nothing.
  {
    route: "/api/otel/v1/traces",
    method: "POST",
    url: () => "/api/otel/v1/traces",
    body: { resourceSpans: [] },
    allowed: RUNS_EXPERIMENTS,
    status: 200,
  },
  { route: "/api/v1/me", method: "GET", url: () => "/api/v1/me", allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/experiments", method: "GET", url: () => "/api/v1/experiments?limit=5", allowed: SIGNED_IN, status: 200 },
  {
    route: "/api/v1/experiments",
    method: "POST",
    url: () => "/api/v1/experiments",
    body: { schedules: 0 },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/experiments/[id]",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]",
    method: "PATCH",
    url: () => `/api/v1/experiments/${UNKNOWN_UUID}`,
    body: { name: "renamed" },
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  {
    route: "/api/v1/experiments/[id]/summary",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/summary`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/traces",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/traces`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/statistics",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/statistics`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/exclusion-rule",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/exclusion-rule`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/exclusion-rule",
    method: "PUT",
    url: () => `/api/v1/experiments/${UNKNOWN_UUID}/exclusion-rule`,
    body: {
      baseVersion: 1,
      reason: "x",
      rule: {
        classes: {
          completed: "keep",
          agent_failure: "keep",
          protocol_stop: "keep",
          environment_failure: "exclude",
          missing_evidence: "keep",
        },
        unresolved: "exclude",
      },
    },
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  // A replay experiment has no canary results: 404 once past authorization.
  {
    route: "/api/v1/experiments/[id]/canary",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/canary`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/experiments/[id]/table2",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/table2?format=csv`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/runs",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/runs?limit=5`,
    allowed: SIGNED_IN,
    status: 200,
  },
  {
    route: "/api/v1/experiments/[id]/runs/export",
    method: "GET",
    url: () => `/api/v1/experiments/${accounts().experimentId}/runs/export?format=csv`,
    allowed: SIGNED_IN,
    status: 200,
  },
  { route: "/api/v1/runs/[id]", method: "GET", url: () => `/api/v1/runs/${accounts().runId}`, allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/effects", method: "GET", url: () => "/api/v1/effects", allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/effects/export", method: "GET", url: () => "/api/v1/effects/export?format=json", allowed: SIGNED_IN, status: 200 },
  {
    route: "/api/v1/experiments/[id]/cancel",
    method: "POST",
    url: () => `/api/v1/experiments/${UNKNOWN_UUID}/cancel`,
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  { route: "/api/v1/evaluations", method: "GET", url: () => "/api/v1/evaluations?limit=5", allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/traces", method: "GET", url: () => "/api/v1/traces?suite=banking&limit=5", allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/traces/[id]", method: "GET", url: () => `/api/v1/traces/${accounts().traceId}`, allowed: SIGNED_IN, status: 200 },
  {
    route: "/api/v1/evaluations",
    method: "POST",
    url: () => "/api/v1/evaluations",
    body: { name: "" },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  { route: "/api/v1/evaluations/[id]", method: "GET", url: () => `/api/v1/evaluations/${UNKNOWN_UUID}`, allowed: SIGNED_IN, status: 404 },
  // An empty change: refused (400) past authorization, nothing written.
  {
    route: "/api/v1/evaluations/[id]",
    method: "PATCH",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  // An unknown evaluation: nothing to delete (404 past authorization).
  {
    route: "/api/v1/evaluations/[id]",
    method: "DELETE",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}`,
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/runs/[externalId]",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/runs/${encodeURIComponent("no/such/run")}`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/export",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/export?format=csv`,
    allowed: SIGNED_IN,
    status: 404,
  },
  { route: "/api/v1/admin/audit-log", method: "GET", url: () => "/api/v1/admin/audit-log", allowed: ADMIN, status: 200 },
  {
    route: "/api/v1/evaluations/[id]/runs",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/runs?limit=5`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/runs",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/runs`,
    body: { runs: [] },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/statistics",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/statistics`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/compare",
    method: "GET",
    url: () => `/api/v1/evaluations/compare?ids=${UNKNOWN_UUID},${UNKNOWN_UUID_2}`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/exclusion-rule",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/exclusion-rule`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/exclusion-rule",
    method: "PUT",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/exclusion-rule`,
    body: { baseVersion: 1, reason: "x" },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/summary",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/summary`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/effect-policy",
    method: "PUT",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/effect-policy`,
    body: { tools: { "bank.transfer": "maybe" } },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/runs/[externalId]/resets/canary",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/runs/r1/resets/canary`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/live-runs",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/live-runs`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/live-runs/[externalId]",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/live-runs/r1`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/live-runs/[externalId]/events",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/live-runs/r1/events`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/live-runs/[externalId]/recorders/[recorderId]",
    method: "PUT",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/live-runs/r1/recorders/rec-1`,
    body: { stopped: "yes" },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/live-runs/[externalId]/score",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/live-runs/r1/score`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/tool-suggestions",
    method: "GET",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/tool-suggestions`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/evaluations/[id]/tool-suggestions",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/tool-suggestions`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/evaluations/[id]/effects/[effectId]/resolutions",
    method: "POST",
    url: () => `/api/v1/evaluations/${UNKNOWN_UUID}/effects/e1/resolutions`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  { route: "/api/v1/imports", method: "POST", url: () => "/api/v1/imports", body: {}, allowed: RUNS_EXPERIMENTS, status: 400 },
  // The ingest body's JSON Schema is documentation: no account needed.
  { route: "/api/v1/schema/ingest.json", method: "GET", url: () => "/api/v1/schema/ingest.json", allowed: EVERYONE, status: 200 },
  { route: "/api/v1/protocols", method: "GET", url: () => "/api/v1/protocols", allowed: SIGNED_IN, status: 200 },
  {
    route: "/api/v1/protocols",
    method: "POST",
    url: () => "/api/v1/protocols",
    body: { name: "" },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  { route: "/api/v1/protocols/[id]", method: "GET", url: () => `/api/v1/protocols/${UNKNOWN_UUID}`, allowed: SIGNED_IN, status: 404 },
  {
    route: "/api/v1/protocols/[id]",
    method: "PATCH",
    url: () => `/api/v1/protocols/${UNKNOWN_UUID}`,
    body: { name: "renamed", expectedVersion: 1, reason: "authz" },
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  {
    route: "/api/v1/protocols/[id]/completion-argument",
    method: "GET",
    url: () => `/api/v1/protocols/${UNKNOWN_UUID}/completion-argument?format=markdown`,
    allowed: SIGNED_IN,
    status: 404,
  },
  {
    route: "/api/v1/protocols/[id]/completion-argument",
    method: "POST",
    url: () => `/api/v1/protocols/${UNKNOWN_UUID}/completion-argument`,
    body: { expectedVersion: null, argument: { questions: {} }, reason: "authz" },
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  {
    route: "/api/v1/protocols/[id]/codes",
    method: "PUT",
    url: () => `/api/v1/protocols/${UNKNOWN_UUID}/codes`,
    body: {},
    allowed: CODERS,
    status: 400,
  },
  {
    route: "/api/v1/protocols/[id]/consensus",
    method: "PUT",
    url: () => `/api/v1/protocols/${UNKNOWN_UUID}/consensus`,
    body: {},
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/review-codes/[id]/restore",
    method: "POST",
    url: () => `/api/v1/review-codes/${UNKNOWN_UUID}/restore`,
    body: {},
    allowed: CODERS,
    status: 400,
  },
  {
    route: "/api/v1/protocols/export",
    method: "GET",
    url: () => "/api/v1/protocols/export?format=latex-table3",
    allowed: RUNS_EXPERIMENTS,
    status: 200,
  },
  { route: "/api/v1/users", method: "GET", url: () => "/api/v1/users", allowed: ADMIN, status: 200 },
  {
    route: "/api/v1/users",
    method: "POST",
    url: () => "/api/v1/users",
    body: { email: "not-an-email", password: "x", role: "viewer" },
    allowed: ADMIN,
    status: 400,
  },
  {
    route: "/api/v1/users/[id]",
    method: "PATCH",
    url: () => "/api/v1/users/no-such-user",
    body: { role: "viewer" },
    allowed: ADMIN,
    status: 404,
  },
  {
    route: "/api/v1/users/[id]/deactivate",
    method: "POST",
    url: () => "/api/v1/users/no-such-user/deactivate",
    allowed: ADMIN,
    status: 404,
  },
  {
    route: "/api/v1/users/[id]/reactivate",
    method: "POST",
    url: () => "/api/v1/users/no-such-user/reactivate",
    allowed: ADMIN,
    status: 404,
  },
  {
    route: "/api/v1/users/[id]/password",
    method: "POST",
    url: () => "/api/v1/users/no-such-user/password",
    body: { password: "a long enough password" },
    allowed: ADMIN,
    status: 404,
  },
  { route: "/api/v1/api-keys", method: "GET", url: () => "/api/v1/api-keys", allowed: SIGNED_IN, status: 200 },
  { route: "/api/v1/api-keys", method: "GET", url: () => "/api/v1/api-keys?all=true", allowed: ADMIN, status: 200 },
  { route: "/api/v1/api-keys", method: "POST", url: () => "/api/v1/api-keys", body: { name: "" }, allowed: SIGNED_IN, status: 400 },
  { route: "/api/v1/api-keys/[id]", method: "DELETE", url: () => "/api/v1/api-keys/no-such-key", allowed: SIGNED_IN, status: 404 },
  { route: "/api/v1/share-links", method: "GET", url: () => "/api/v1/share-links", allowed: RUNS_EXPERIMENTS, status: 200 },
  {
    route: "/api/v1/share-links",
    method: "GET",
    url: () => `/api/v1/share-links?resourceType=run&resourceId=${accounts().runId}`,
    allowed: RUNS_EXPERIMENTS,
    status: 200,
  },
  {
    route: "/api/v1/share-links",
    method: "POST",
    url: () => "/api/v1/share-links",
    body: { resourceType: "experiment", resourceId: "not-a-uuid" },
    allowed: RUNS_EXPERIMENTS,
    status: 400,
  },
  {
    route: "/api/v1/share-links/[id]/revoke",
    method: "POST",
    url: () => `/api/v1/share-links/${UNKNOWN_UUID}/revoke`,
    allowed: RUNS_EXPERIMENTS,
    status: 404,
  },
  { route: "/api/v1/settings/share-links", method: "GET", url: () => "/api/v1/settings/share-links", allowed: ADMIN, status: 200 },
  {
    route: "/api/v1/settings/share-links",
    method: "PUT",
    url: () => "/api/v1/settings/share-links",
    body: { disabled: false },
    allowed: ADMIN,
    status: 200,
  },
  // The token is the credential: its own resource opens for anyone, and a token that opens nothing for no one.
  { route: "/api/v1/shared/[token]", method: "GET", url: () => `/api/v1/shared/${shareToken}`, allowed: EVERYONE, status: 200 },
  {
    route: "/api/v1/shared/[token]",
    method: "GET",
    url: () => `/api/v1/shared/${shareToken.slice(0, -2)}AA`,
    allowed: EVERYONE,
    status: 404,
  },
  // First-run setup is public, and closed for good once an account exists.
  {
    route: "/api/v1/setup",
    method: "POST",
    url: () => "/api/v1/setup",
    body: { email: "late@e2e.test", password: "a long enough password" },
    allowed: EVERYONE,
    status: 409,
  },
];

interface PageCase {
  url: () => string;
  /** Callers who see the page (200); the others are redirected: to sign in, or (signed in) to /forbidden. */
  allowed: Caller[];
}
const PAGES: PageCase[] = [
  { url: () => "/", allowed: SIGNED_IN },
  { url: () => `/experiments/${accounts().experimentId}`, allowed: SIGNED_IN },
  { url: () => "/experiments/new", allowed: RUNS_EXPERIMENTS },
  { url: () => `/experiments/${accounts().experimentId}/runs`, allowed: SIGNED_IN },
  { url: () => `/runs/${accounts().runId}`, allowed: SIGNED_IN },
  { url: () => "/effects", allowed: SIGNED_IN },
  { url: () => "/evaluations", allowed: SIGNED_IN },
  { url: () => "/evaluations/import", allowed: RUNS_EXPERIMENTS },
  { url: () => `/evaluations/compare?ids=${UNKNOWN_UUID}`, allowed: SIGNED_IN },
  { url: () => "/traces", allowed: SIGNED_IN },
  { url: () => `/traces/${accounts().traceId}`, allowed: SIGNED_IN },
  { url: () => "/protocols", allowed: SIGNED_IN },
  { url: () => `/protocols/${protocolId}/completion-argument`, allowed: SIGNED_IN },
  { url: () => "/account", allowed: SIGNED_IN },
  { url: () => "/admin", allowed: ADMIN },
  { url: () => `/s/${shareToken}`, allowed: EVERYONE },
  { url: () => `/evaluations/${evaluationId}/compare-runs?a=r1&b=r1`, allowed: SIGNED_IN },
  { url: () => `/s/${evaluationShareToken}/runs`, allowed: EVERYONE },
  { url: () => `/s/${evaluationShareToken}/runs/r1`, allowed: EVERYONE },
  { url: () => `/s/${evaluationShareToken}/compare-runs?a=r1&b=r1`, allowed: EVERYONE },
];

const clients = new Map<Caller, APIRequestContext>();

test.beforeAll(async () => {
  for (const caller of CALLERS) {
    const headers: Record<string, string> =
      caller === "editorApiKey"
        ? bearer(accounts().users.editor.apiKey)
        : caller === "revokedApiKey"
          ? bearer(accounts().revokedApiKey)
          : {};
    const storageState =
      caller === "viewer" || caller === "reviewer" || caller === "editor" || caller === "admin" ? await storageStateFor(caller) : undefined;
    // Browsers send Origin with every write; a same-origin one passes the cross-site check. Each
    // caller is its own client (address), as it would be: share lookups are rate-limited per address.
    const client = { origin: BASE_URL, "x-forwarded-for": `10.7.0.${CALLERS.indexOf(caller) + 1}` };
    clients.set(caller, await request.newContext({ baseURL: BASE_URL, storageState, extraHTTPHeaders: { ...headers, ...client } }));
  }
  // A share link of one run: its token must open nothing else.
  const admin = clients.get("admin")!;
  const created = await admin.post("/api/v1/share-links", { data: { resourceType: "run", resourceId: accounts().runId } });
  expect(created.status()).toBe(201);
  shareToken = new URL(((await created.json()) as { url: string }).url).pathname.split("/").pop()!;
  protocolId = ((await (await admin.get("/api/v1/protocols")).json()) as { protocols: { id: string }[] }).protocols[0]!.id;
  const evaluation = await admin.post("/api/v1/evaluations", {
    data: { name: `authz matrix ${Date.now()}`, effectPolicy: { tools: { "bank.transfer": "async_handle" } } },
  });
  expect(evaluation.status(), await evaluation.text()).toBe(201);
  evaluationId = ((await evaluation.json()) as { id: string }).id;
  const run = {
    externalId: "r1",
    taskId: "t1",
    startedAt: "2026-12-01T10:00:00.000Z",
    scoredAt: "2026-12-01T10:00:05.000Z",
    endpointLabel: "success",
  };
  expect((await admin.post(`/api/v1/evaluations/${evaluationId}/runs`, { data: { runs: [run] } })).status()).toBe(200);
  const evaluationLink = await admin.post("/api/v1/share-links", { data: { resourceType: "evaluation", resourceId: evaluationId } });
  expect(evaluationLink.status()).toBe(201);
  evaluationShareToken = new URL(((await evaluationLink.json()) as { url: string }).url).pathname.split("/").pop()!;
  clients.set(
    "otherShareToken",
    await request.newContext({
      baseURL: BASE_URL,
      extraHTTPHeaders: { ...bearer(shareToken), origin: BASE_URL, "x-forwarded-for": "10.7.0.99" },
    }),
  );
});

test.afterAll(async () => {
  for (const client of clients.values()) await client.dispose();
});

test("every route handler answers exactly the callers its role table allows", async () => {
  // Some 70 routes by 8 callers, one request at a time: on a loaded machine that outlasts the default 30 s.
  test.setTimeout(120_000);
  const outcome: Record<string, Record<Caller, number>> = {};
  const expected: Record<string, Record<Caller, number>> = {};
  for (const route of ROUTES) {
    const label = `${route.method} ${route.url()}`;
    outcome[label] = {} as Record<Caller, number>;
    expected[label] = {} as Record<Caller, number>;
    for (const caller of CALLERS) {
      const response = await clients
        .get(caller)!
        .fetch(route.url(), { method: route.method, ...(route.body === undefined ? {} : { data: route.body }) });
      outcome[label][caller] = response.status();
      const signedIn = SIGNED_IN.includes(caller);
      expected[label][caller] = route.allowed.includes(caller) ? route.status : signedIn ? 403 : 401;
    }
  }
  expect(outcome).toEqual(expected);
});

test("every page shows only to the callers allowed, and sends the others to sign in or to /forbidden", async () => {
  const outcome: Record<string, Record<Caller, string>> = {};
  const expected: Record<string, Record<Caller, string>> = {};
  for (const page of PAGES) {
    const url = page.url();
    outcome[url] = {} as Record<Caller, string>;
    expected[url] = {} as Record<Caller, string>;
    for (const caller of CALLERS) {
      const response = await clients.get(caller)!.get(url, { maxRedirects: 0 });
      const location = response.headers()["location"];
      outcome[url][caller] = location ? `${response.status()} ${new URL(location, BASE_URL).pathname}` : String(response.status());
      expected[url][caller] = page.allowed.includes(caller) ? "200" : SIGNED_IN.includes(caller) ? "307 /forbidden" : "307 /login";
    }
  }
  expect(outcome).toEqual(expected);
});

test("the matrix covers every route handler, and the app has no server action outside it", () => {
  const routeFiles: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name === "route.ts") routeFiles.push(file);
    }
  };
  walk("app/api");
  const handlers = routeFiles.flatMap((file) => {
    const route = `/${path.relative("app", path.dirname(file))}`;
    const methods = [...readFileSync(file, "utf8").matchAll(/export (?:const|async function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map(
      (m) => m[1],
    );
    return methods.map((method) => `${method} ${route}`);
  });
  // Better Auth's own endpoints check sessions and origins themselves (tested below); the catch-all only
  // answers the API's 404 to anyone (app/api/[...path]/route.ts).
  const covered = new Set([
    ...ROUTES.map((r) => `${r.method} ${r.route}`),
    "GET /api/auth/[...all]",
    "POST /api/auth/[...all]",
    ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => `${method} /api/[...path]`),
  ]);
  expect(handlers.filter((h) => !covered.has(h))).toEqual([]);
  expect(handlers.length).toBeGreaterThanOrEqual(ROUTES.length - 2);

  const serverActions: string[] = [];
  const scan = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) scan(file);
      else if (/\.(ts|tsx)$/.test(name) && /^\s*["']use server["']/m.test(readFileSync(file, "utf8"))) serverActions.push(file);
    }
  };
  for (const dir of ["app", "components", "lib"]) scan(dir);
  expect(serverActions).toEqual([]);
});

test("a cross-site write is refused even with a valid session, and sign-in refuses a foreign origin", async () => {
  const admin = await request.newContext({ baseURL: BASE_URL, storageState: await storageStateFor("admin") });
  for (const headers of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<string, string>[]) {
    const response = await admin.post("/api/v1/experiments", { data: { schedules: 1 }, headers });
    expect(response.status()).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("cross_site");
  }
  const signIn = await admin.post("/api/auth/sign-in/email", {
    data: { email: accounts().users.viewer.email, password: "irrelevant password" },
    headers: { origin: "https://evil.example" },
  });
  expect(signIn.status()).toBe(403);
  await admin.dispose();
});

test("errors leak no stack trace or SQL", async () => {
  const admin = clients.get("admin")!;
  for (const response of [
    await admin.post("/api/v1/experiments", { data: "{not json", headers: { "content-type": "application/json" } }),
    await admin.get("/api/v1/experiments/not-a-uuid"),
    await admin.patch("/api/v1/users/x", { data: { role: "root" } }),
  ]) {
    const text = await response.text();
    expect(response.status()).toBe(400);
    expect(text).not.toMatch(/\n\s+at |SELECT |prisma|\.ts:\d+/i);
  }
});
