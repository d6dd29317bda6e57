import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import type { Principal } from "@/lib/auth/principal";
import { readServerEnv } from "@/lib/env";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { EVALUATION_EXPORT_COLUMNS } from "@/lib/evaluations/read/export-runs";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import { openLiveRun } from "@/lib/evaluations/live/open-live-run";
import { recordLiveEvents } from "@/lib/evaluations/live/record-live-events";
import { evaluationSummary } from "@/lib/evaluations/read/summary";
import { shareRefusal } from "@/lib/share/refusal";
import { createShareLink, openShareLink } from "@/lib/share/share-links";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { at } from "@/lib/testing/evaluation-example";

// The export and the delete of an evaluation as served (apiRoute, API keys of each role), on runs
// stored by the ingestion path: "doomed" holds a1 and a2 (one analysis unit: a1 writes db:shared,
// a2 reads it later), b1 (alone, its transfer pending at scoring: unresolved) and an open live run;
// "kept" holds one run and must come through the delete of the other untouched.
let database: TestDatabase;
let doomed: string;
let kept: string;
const keys: Record<"viewer" | "editor" | "admin", string> = { viewer: "", editor: "", admin: "" };
let editorPrincipal: Principal;
const links: Record<"frozen" | "live" | "comparison" | "keptFrozen", string> = { frozen: "", live: "", comparison: "", keptFrozen: "" };
let route: typeof import("./route");
let exportRoute: typeof import("./export/route");
let auditRoute: typeof import("../../admin/audit-log/route");

const ORIGIN = "http://localhost:3999";

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: ORIGIN };
  Object.assign(process.env, env);
  const db = database.db;
  doomed = await createEvaluation(db, { name: "doomed import", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
  await ingestRuns(db, doomed, [
    {
      externalId: "a1",
      taskId: "t1",
      startedAt: at(0),
      scoredAt: at(1),
      endpointLabel: "success",
      touches: [{ surface: "db:shared", op: "write", at: at(0) }],
    },
    {
      externalId: "a2",
      taskId: "t1",
      startedAt: at(10),
      scoredAt: at(11),
      endpointLabel: "failure",
      touches: [{ surface: "db:shared", op: "read", at: at(10) }],
    },
    {
      externalId: "b1",
      taskId: "t2",
      startedAt: at(20),
      scoredAt: at(21),
      endpointLabel: "success",
      score: 0.9,
      threshold: 0.5,
      effects: [{ effectId: "e1", tool: "bank.transfer", handle: "tx-1", requestedAt: at(20), statusAtScoring: "pending" }],
    },
  ]);
  await openLiveRun(db, doomed, { externalId: "live-1", taskId: "t3", startedAt: at(30) });
  await recordLiveEvents(db, doomed, "live-1", [
    { eventId: "1", type: "effect_requested", at: at(31), effectId: "tx", tool: "bank.transfer", handle: "task-1", surface: "acct:1" },
  ]);
  kept = await createEvaluation(db, { name: "kept" }, null);
  await ingestRuns(db, kept, [{ externalId: "k1", taskId: "k", startedAt: at(0), scoredAt: at(1), endpointLabel: "success" }]);

  const auth = createAuth(db, readServerEnv(env), database.url);
  for (const role of ["viewer", "editor", "admin"] as const) {
    const account = await createAccount(auth, { email: `${role}@export-delete.test`, password: "a long enough password", role });
    keys[role] = (await createApiKey(auth, account.id, "export-delete")).key;
    if (role === "editor") editorPrincipal = { userId: account.id, email: account.email, name: role, role, via: "api_key" };
  }
  const share = async (input: Parameters<typeof createShareLink>[2]) =>
    (await createShareLink(db, editorPrincipal, input, { defaultExpiryDays: 30 })).token;
  links.frozen = await share({ resourceType: "evaluation", resourceId: doomed, mode: "frozen", expiresInDays: 30 });
  links.live = await share({ resourceType: "evaluation", resourceId: doomed, mode: "live", expiresInDays: 30 });
  links.comparison = await share({ resourceType: "comparison", resourceIds: [doomed, kept], mode: "live", expiresInDays: 30 });
  links.keptFrozen = await share({ resourceType: "evaluation", resourceId: kept, mode: "frozen", expiresInDays: 30 });

  route = await import("./route");
  exportRoute = await import("./export/route");
  auditRoute = await import("../../admin/audit-log/route");
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

const bearer = (role: keyof typeof keys) => ({ authorization: `Bearer ${keys[role]}` });
const params = (id: string) => ({ params: Promise.resolve({ id }) });
const exportOf = (id: string, format: string, role: keyof typeof keys = "viewer") =>
  exportRoute.GET(new Request(`${ORIGIN}/api/v1/evaluations/${id}/export?format=${format}`, { headers: bearer(role) }), params(id));
const remove = (id: string, role: keyof typeof keys, query = "") =>
  route.DELETE(new Request(`${ORIGIN}/api/v1/evaluations/${id}${query}`, { method: "DELETE", headers: bearer(role) }), params(id));
const auditLog = (role: keyof typeof keys) =>
  auditRoute.GET(new Request(`${ORIGIN}/api/v1/admin/audit-log`, { headers: bearer(role) }), params(""));

/** Rows of the evaluation left in each table that holds its data. */
async function rowsLeft(id: string): Promise<Record<string, number>> {
  const [row] = await database.db.$queryRawUnsafe<Record<string, number>[]>(
    `SELECT (SELECT count(*)::int FROM evaluations WHERE id = $1::uuid) AS evaluations,
            (SELECT count(*)::int FROM evaluation_runs WHERE evaluation_id = $1::uuid) AS runs,
            (SELECT count(*)::int FROM evaluation_effects WHERE evaluation_id = $1::uuid) AS effects,
            (SELECT count(*)::int FROM evaluation_run_counts WHERE evaluation_id = $1::uuid) AS run_counts,
            (SELECT count(*)::int FROM evaluation_units WHERE evaluation_id = $1::uuid) AS units,
            (SELECT count(*)::int FROM evaluation_surfaces WHERE evaluation_id = $1::uuid) AS surfaces,
            (SELECT count(*)::int FROM evaluation_effect_policies WHERE evaluation_id = $1::uuid) AS policies,
            (SELECT count(*)::int FROM live_runs WHERE evaluation_id = $1::uuid) AS live_runs,
            (SELECT count(*)::int FROM live_run_events e WHERE NOT EXISTS (SELECT 1 FROM live_runs r WHERE r.id = e.live_run_id)) AS orphan_events`,
    id,
  );
  return row!;
}

describe("GET /api/v1/evaluations/{id}/export", () => {
  it("answers every run with its audit and unit as CSV: BOM, CRLF, the columns in order", async () => {
    const response = await exportOf(doomed, "csv");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="evaluation-${doomed}.csv"`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the BOM, so that spreadsheets read UTF-8
    const lines = bytes.subarray(3).toString("utf8").split("\r\n");
    expect(lines.at(-1)).toBe(""); // every record ends in CRLF
    expect(lines[0]).toBe(EVALUATION_EXPORT_COLUMNS.join(","));
    expect(lines.slice(1, -1).map((line) => line.split(",")[0])).toEqual(["a1", "a2", "b1"]);
  });

  it("answers the same rows as JSON, the two runs of one unit named by it", async () => {
    const response = await exportOf(doomed, "json");
    expect(response.status).toBe(200);
    const runs = (await response.json()) as Record<string, unknown>[];
    expect(runs.map((r) => Object.keys(r))).toEqual(runs.map(() => [...EVALUATION_EXPORT_COLUMNS]));
    const [a1, a2, b1] = runs;
    expect(a1).toMatchObject({
      externalId: "a1",
      taskId: "t1",
      finality: "final",
      unitLabel: "U1",
      analysisUnitRuns: 2,
      inheritedState: "none",
      effects: 0,
    });
    expect(a2).toMatchObject({
      externalId: "a2",
      analysisUnit: a1!.analysisUnit,
      unitLabel: "U1",
      analysisUnitRuns: 2,
      inheritedState: "internal",
    });
    expect(b1).toMatchObject({
      externalId: "b1",
      finality: "unresolved",
      unresolvedReason: "pending_at_scoring",
      unresolvedTool: "bank.transfer",
      score: 0.9,
      threshold: 0.5,
      runClass: "completed",
      unitLabel: "U2",
      analysisUnitRuns: 1,
      effects: 1,
      effectPolicyVersion: 1,
    });
    expect(b1!.analysisUnit).not.toBe(a1!.analysisUnit);
  });

  it("refuses an unknown format naming the field, and an unknown evaluation with 404", async () => {
    const bad = await exportOf(doomed, "xlsx");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ field: "format" });
    expect((await exportOf("00000000-0000-4000-8000-000000000000", "csv")).status).toBe(404);
  });
});

describe("DELETE /api/v1/evaluations/{id}", () => {
  it("is refused to a viewer, and to a stale confirmation (409 naming the count now), deleting nothing", async () => {
    expect((await remove(doomed, "viewer")).status).toBe(403);
    const stale = await remove(doomed, "editor", "?expectedRuns=2");
    expect(stale.status).toBe(409);
    expect((await stale.json()).error).toMatchObject({ code: "run_count_changed", field: "expectedRuns", details: { runs: 3 } });
    expect(await rowsLeft(doomed)).toMatchObject({ evaluations: 1, runs: 3, live_runs: 1 });
    const malformed = await remove(doomed, "editor", "?expectedRuns=three");
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({ field: "expectedRuns" });
  });

  it("deletes the evaluation and every row of it for an editor, answering what went, and leaves the other evaluation alone", async () => {
    const response = await remove(doomed, "editor", "?expectedRuns=3");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: doomed, name: "doomed import", runs: 3, openLiveRuns: 1, deletedAt: expect.any(String) });
    expect(await rowsLeft(doomed)).toEqual({
      evaluations: 0,
      runs: 0,
      effects: 0,
      run_counts: 0,
      units: 0,
      surfaces: 0,
      policies: 0,
      live_runs: 0,
      orphan_events: 0,
    });
    expect(await rowsLeft(kept)).toMatchObject({ evaluations: 1, runs: 1, run_counts: 1 });
    expect((await evaluationSummary(database.db, kept)).runs).toBe(1);
    // Gone now: a second delete and the export answer 404.
    expect((await remove(doomed, "editor")).status).toBe(404);
    expect((await exportOf(doomed, "json")).status).toBe(404);
  });

  it("records who deleted what in the audit log, which only admins read", async () => {
    expect((await auditLog("editor")).status).toBe(403);
    const response = await auditLog("admin");
    expect(response.status).toBe(200);
    const { entries, nextCursor } = await response.json();
    expect(nextCursor).toBeNull();
    expect(entries).toEqual([
      {
        id: expect.any(String),
        at: expect.any(String),
        actorEmail: "editor@export-delete.test",
        action: "evaluation.delete",
        resourceType: "evaluation",
        resourceId: doomed,
        details: { name: "doomed import", runs: 3, openLiveRuns: 1 },
      },
    ]);
  });

  it("makes every share link of it answer 410, frozen ones too; a link of the other evaluation still opens", async () => {
    for (const token of [links.frozen, links.live, links.comparison]) {
      const opened = await openShareLink(database.db, token);
      expect(opened).toEqual({ status: "gone" });
      expect(shareRefusal(opened)).toMatchObject({ kind: "gone", code: "resource_gone" });
    }
    expect((await openShareLink(database.db, links.keptFrozen)).status).toBe("ok");
  });
});
