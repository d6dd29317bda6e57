import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccount, createApiKey } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { at, SURFACE, WORKED_POLICY, workedExample } from "@/lib/testing/evaluation-example";

// POST /api/v1/evaluations/{id}/runs/{externalId}/resets/canary through apiRoute: 201 with the
// reset's verdict, 400 naming the field with nothing stored, 403 for a viewer.
let database: TestDatabase;
let editorKey: string;
let viewerKey: string;
let evaluationId: string;
let POST: typeof import("./route").POST;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" };
  Object.assign(process.env, env);
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const keyOf = async (role: "editor" | "viewer") =>
    (
      await createApiKey(
        auth,
        (await createAccount(auth, { email: `${role}@canary.test`, password: "a long enough password", role })).id,
        "canary",
      )
    ).key;
  [editorKey, viewerKey] = [await keyOf("editor"), await keyOf("viewer")];
  evaluationId = await createEvaluation(database.db, { name: "canary route", effectPolicy: WORKED_POLICY }, null);
  const runs = workedExample();
  Object.assign(runs[2]!, { resets: [{ surface: SURFACE, at: at(20), verified: true }] });
  await ingestRuns(database.db, evaluationId, runs);
  ({ POST } = await import("./route"));
});
afterAll(async () => {
  await database?.drop();
});

const post = (body: unknown, key = editorKey, externalId = "r3") =>
  POST(
    new Request(`http://localhost:3999/api/v1/evaluations/${evaluationId}/runs/${externalId}/resets/canary`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", origin: "http://localhost:3999" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ id: evaluationId, externalId }) },
  );
const canary = {
  surface: SURFACE,
  planted: "canary-7f3a in balance.note",
  found: true,
  evidence: { key: "balance.note", value: "canary-7f3a" },
};

describe("POST …/runs/{externalId}/resets/canary", () => {
  it("appends a canary check and answers whether the reset still holds", async () => {
    const response = await post(canary);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ resetAt: at(20), verified: false });
  });

  it("refuses a bad body naming the field, and a viewer, storing nothing", async () => {
    const before = await database.db.evaluationResetCanary.count();
    const refusal = async (response: Response) => [response.status, ((await response.json()) as { error: { field?: string } }).error.field];
    const { found: _found, ...withoutFound } = canary;
    expect(await refusal(await post(withoutFound))).toEqual([400, "found"]);
    expect(await refusal(await post({ ...canary, planted: "" }))).toEqual([400, "planted"]);
    expect(await refusal(await post({ ...canary, at: "yesterday" }))).toEqual([400, "at"]);
    expect((await post(canary, viewerKey)).status).toBe(403);
    expect(await database.db.evaluationResetCanary.count()).toBe(before);
  });
});
