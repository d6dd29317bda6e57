import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EvaluationApiError, evaluationClient, type EvaluationClient } from "@/lib/evaluations/client/api-client";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import type { TestDatabase } from "@/lib/testing/database";
import { ROUTE_TEST_ORIGIN, routeTestDatabase } from "@/lib/testing/route-test-database";
import { at, WORKED_POLICY } from "@/lib/testing/evaluation-example";

// The live-run routes exactly as docs/recording.md writes them, through the typed client and the route
// handlers (auth, parsing, error mapping) on a real PostgreSQL.
let database: TestDatabase;
let client: EvaluationClient;
let raw: (path: string, body: unknown) => Promise<{ status: number; json: unknown }>;
let evaluationId: string;
let key: string;

beforeAll(async () => {
  const made = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "live");
  database = made.database;
  key = made.key;
  // Imported once the environment names the test database: the handlers' getDb() reads it.
  const open = await import("./route");
  const events = await import("./[externalId]/events/route");
  const score = await import("./[externalId]/score/route");
  const read = await import("./[externalId]/route");
  const send = (request: Request) => {
    const [, , , , id, , externalId, action] = new URL(request.url).pathname.split("/").map(decodeURIComponent);
    const context = { params: Promise.resolve({ id: id!, ...(externalId !== undefined && { externalId }) }) };
    if (externalId === undefined) return open.POST(request, context);
    if (action === "events") return events.POST(request, context);
    if (action === "score") return score.POST(request, context);
    return read.GET(request, context);
  };
  client = evaluationClient({ baseUrl: ROUTE_TEST_ORIGIN, apiKey: made.key, fetch: send });
  raw = async (path, body) => {
    const response = await send(
      new Request(`${ROUTE_TEST_ORIGIN}/api/v1/evaluations/${evaluationId}/live-runs${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json" },
      }),
    );
    return { status: response.status, json: await response.json() };
  };
  evaluationId = await createEvaluation(database.db, { name: "live routes", effectPolicy: WORKED_POLICY }, null);
});
afterAll(async () => {
  await database?.drop();
});

describe("the live-run routes", () => {
  it("open with 201 {externalId}, take events, score with {finality, reason, effectId}", async () => {
    expect(await raw("", { externalId: "run 1", taskId: "t", startedAt: at(0) })).toEqual({
      status: 201,
      json: { externalId: "run 1", created: true, state: "open" },
    });
    expect(await raw("", { externalId: "run 1", taskId: "t" })).toMatchObject({ status: 201, json: { created: false } });
    const answer = await client.sendLiveEvents(evaluationId, "run 1", [
      { eventId: "a", type: "effect_requested", at: at(1), effectId: "tx", tool: "bank.transfer", handle: "task-9" },
      { eventId: "b", type: "effect_status", at: at(2), effectId: "tx", status: "working" },
    ]);
    expect(answer).toEqual({
      accepted: 1,
      duplicates: 0,
      flagged: [],
      state: "open",
      errors: [
        {
          index: 1,
          code: "invalid_event",
          field: "events.1.status",
          message: "events.1.status: status must be one of pending, completed, failed, cancelled, unknown",
        },
      ],
    });
    expect(await raw("/run%201/score", { endpointLabel: "success", at: at(3) })).toEqual({
      status: 200,
      json: { finality: "unresolved", reason: "pending_at_scoring", effectId: "tx", tool: "bank.transfer" },
    });
    const read = await fetchLive("run 1");
    expect(read).toMatchObject({ state: "scored", eventCount: 1, record: { effects: [{ effectId: "tx", statusAtScoring: "pending" }] } });
  });

  it("refuses with the field named: a bad open body, a bad score body, a closed run's open, an unknown run", async () => {
    expect(await raw("", { externalId: "x" })).toMatchObject({ status: 400, json: { error: { field: "taskId" } } });
    expect(await raw("/run%201/score", { score: 1 })).toMatchObject({ status: 400, json: { error: { field: "endpointLabel" } } });
    expect(await raw("", { externalId: "run 1", taskId: "t" })).toMatchObject({
      status: 409,
      json: { error: { code: "live_run_scored" } },
    });
    const unknown = await client.sendLiveEvents(evaluationId, "nobody", [{}]).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(EvaluationApiError);
    expect(unknown).toMatchObject({ status: 404, field: "externalId" });
    expect(await raw("/run%201/events", { events: "all of them" })).toMatchObject({ status: 400, json: { error: { field: "events" } } });
  });
});

async function fetchLive(externalId: string): Promise<unknown> {
  const { GET } = await import("./[externalId]/route");
  const response = await GET(
    new Request(`${ROUTE_TEST_ORIGIN}/api/v1/evaluations/${evaluationId}/live-runs/${encodeURIComponent(externalId)}`, {
      headers: { authorization: `Bearer ${key}` },
    }),
    { params: Promise.resolve({ id: evaluationId, externalId }) },
  );
  return response.json();
}
