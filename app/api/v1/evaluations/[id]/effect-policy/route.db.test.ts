import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { EvaluationApiError, evaluationClient, type EvaluationClient } from "@/lib/evaluations/client/api-client";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import { applyPendingPolicy } from "@/lib/evaluations/policy-recompute/recompute";
import type { EffectPolicy } from "@/lib/evaluations/effect-policy-schema";
import { evaluationSummary } from "@/lib/evaluations/read/summary";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { WORKED_POLICY, workedExample } from "@/lib/testing/evaluation-example";

// PUT …/effect-policy with and without baseVersion, through the typed client and the route handler
// (auth, parsing, error mapping) on a real PostgreSQL: a stale base is refused with both policies and
// changes nothing; a current one, or none, stores the next version.
let database: TestDatabase;
let db: Db;
let editor: EvaluationClient;
let put: (id: string, body: unknown) => Promise<{ status: number; json: unknown }>;

beforeAll(async () => {
  const made = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "policy");
  database = made.database;
  db = database.db;
  const { key } = made;
  // Imported once the environment names the test database: the handler's getDb() reads it.
  const { PUT } = await import("./route");
  const send = (request: Request) => PUT(request, { params: Promise.resolve({ id: new URL(request.url).pathname.split("/")[4]! }) });
  editor = evaluationClient({ baseUrl: "http://localhost:3999", apiKey: key, fetch: send });
  put = async (id, body) => {
    const response = await send(
      new Request(`http://localhost:3999/api/v1/evaluations/${id}/effect-policy`, {
        method: "PUT",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      }),
    );
    return { status: response.status, json: await response.json() };
  };
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) =>
      error instanceof EvaluationApiError
        ? { status: error.status, code: error.code, message: error.message, field: error.field, details: error.details }
        : error,
  );
const READS: EffectPolicy = { tools: { "bank.*": "read_only" } };
const EXTERNAL: EffectPolicy = { tools: { "bank.*": "external" } };

async function stored(id: string) {
  const evaluation = await db.evaluation.findUniqueOrThrow({ where: { id }, select: { effectPolicyVersion: true } });
  const versions = await db.evaluationEffectPolicy.findMany({
    where: { evaluationId: id },
    orderBy: { version: "asc" },
    select: { version: true, tools: true },
  });
  return { current: evaluation.effectPolicyVersion, versions, summary: await evaluationSummary(db, id) };
}

describe("PUT /api/v1/evaluations/{id}/effect-policy with baseVersion", () => {
  it("stores the next version from the current one, refuses a stale one with both policies and changes nothing, and applies {tools} alone as before", async () => {
    const id = await createEvaluation(db, { name: "policy versions", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, workedExample());

    expect(await editor.setEffectPolicy(id, READS, 1)).toEqual({ version: 2, appliedVersion: 1, recompute: { runsDone: 0, runsTotal: 3 } });
    // The figures move to version 2 once its job applies it.
    expect((await stored(id)).summary).toMatchObject({ effectPolicyVersion: 1, pendingPolicy: { version: 2 } });
    await applyPendingPolicy(db, id);
    const before = await stored(id);
    expect(before).toMatchObject({ current: 2, summary: { effectPolicyVersion: 2 } });

    // Edited from version 1 while version 2 was saved: 409, the current version and policy beside the refused one.
    expect(await refusal(editor.setEffectPolicy(id, EXTERNAL, 1))).toEqual({
      status: 409,
      code: "edit_conflict",
      message:
        "409 edit_conflict: baseVersion: the effect policy is at version 2 now, not 1; nothing was changed. Compare both and save again from version 2.",
      field: "baseVersion",
      details: { current: { version: 2, policy: READS }, yours: EXTERNAL },
    });
    expect(await refusal(editor.setEffectPolicy(id, EXTERNAL, 3))).toMatchObject({
      status: 409,
      code: "edit_conflict",
      details: { current: { version: 2 } },
    });
    expect(await stored(id)).toEqual(before);

    // The JSON contract {tools} stays: without a base version the policy applies to whatever is current.
    expect(await put(id, EXTERNAL)).toMatchObject({ status: 200, json: { version: 3, appliedVersion: 2 } });
    await applyPendingPolicy(db, id);
    expect(await stored(id)).toMatchObject({
      current: 3,
      versions: [{ version: 1 }, { version: 2 }, { version: 3, tools: EXTERNAL.tools }],
      summary: { effectPolicyVersion: 3 },
    });

    for (const baseVersion of [0, 1.5, "3"])
      expect(await put(id, { ...READS, baseVersion })).toMatchObject({ status: 400, json: { error: { field: "baseVersion" } } });
  });

  it("lets one of two saves from the same version through; the other is refused naming the version the first stored", async () => {
    const id = await createEvaluation(db, { name: "racing saves", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, workedExample());
    // A third transaction holds the evaluation's row: both saves read nothing before it commits, then
    // one stores version 2 while the other waits for it, and finds version 2 once it has the lock.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    let answers: { status: number; json: unknown }[];
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM evaluations WHERE id = $1 FOR UPDATE", [id]);
      const saves = Promise.all([put(id, { ...READS, baseVersion: 1 }), put(id, { ...EXTERNAL, baseVersion: 1 })]);
      // Counted outside the holder's transaction, where pg_stat_activity would stay as first read.
      const waiting = async () =>
        (
          await db.$queryRaw<
            [{ n: number }]
          >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
        )[0].n;
      await expect.poll(waiting, { timeout: 20_000 }).toBe(2);
      await holder.query("COMMIT");
      answers = await saves;
    } finally {
      await holder.end();
    }
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200)!;
    const lost = answers.find((a) => a.status === 409)!;
    expect(won.json).toMatchObject({ version: 2 });
    await applyPendingPolicy(db, id);
    const { current } = await stored(id);
    expect(current).toBe(2);
    const storedPolicy = (
      await db.evaluationEffectPolicy.findUniqueOrThrow({ where: { evaluationId_version: { evaluationId: id, version: 2 } } })
    ).tools;
    expect(lost.json).toMatchObject({
      error: { code: "edit_conflict", details: { current: { version: 2, policy: { tools: storedPolicy } } } },
    });
  });

  it("stores entries with surface templates as sent, beside plain classes, and refuses a bad template naming its field", async () => {
    const id = await createEvaluation(db, { name: "templates", effectPolicy: WORKED_POLICY }, null);
    const templated = {
      tools: {
        write_file: { class: "sync_confirmed", writes: "fs:{path}" },
        "read_*": { class: "read_only", reads: "fs:{path}" },
        "bank.*": "external",
      },
    } satisfies EffectPolicy;
    expect(await editor.setEffectPolicy(id, templated, 1)).toMatchObject({ version: 2 });
    expect(
      (await db.evaluationEffectPolicy.findUniqueOrThrow({ where: { evaluationId_version: { evaluationId: id, version: 2 } } })).tools,
    ).toEqual(templated.tools);
    // The same entries again: nothing to save.
    expect(await put(id, templated)).toMatchObject({ status: 200, json: { version: 2, unchanged: true } });

    for (const [tools, field] of [
      [{ write_file: { class: "sync_confirmed", writes: "fs:{path" } }, "tools.write_file.writes"],
      [{ "read_*": { class: "read_only", reads: "fs:{}" } }, "tools.read_*.reads"],
      [{ write_file: { class: "writes", writes: "fs:{path}" } }, "tools.write_file.class"],
    ] as const)
      expect(await put(id, { tools, baseVersion: 2 })).toMatchObject({ status: 400, json: { error: { field } } });
    expect(await put(id, { tools: { write_file: { class: "sync_confirmed", writes: "fs:{path" } } })).toMatchObject({
      json: {
        error: {
          message:
            "body.tools.write_file.writes: a surface template's braces must pair around an argument's name: the { at position 4 is never closed",
        },
      },
    });
    expect((await stored(id)).versions).toHaveLength(2);
  });
});
