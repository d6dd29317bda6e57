import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { apiRefusal as refusal, HANDLERS_ORIGIN as BASE_URL, useEvaluationApiHandlers } from "@/lib/testing/evaluation-api-handlers";
import { at, SURFACE, WORKED_POLICY as POLICY, workedExample } from "@/lib/testing/evaluation-example";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";

// Text PostgreSQL cannot store, in every field the ingest body stores, through the evaluation API's
// typed client and its route handlers on a real PostgreSQL: each refused naming its field, the
// batch's good runs stored.
let db: Db;
let editor: EvaluationClient;
let send: (request: Request) => Promise<Response>;
let editorAuthorization: string;

useEvaluationApiHandlers(
  async () => [
    [/^\/api\/v1\/evaluations$/, [], await import("@/app/api/v1/evaluations/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)\/runs$/, ["id"], await import("@/app/api/v1/evaluations/[id]/runs/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)\/effect-policy$/, ["id"], await import("@/app/api/v1/evaluations/[id]/effect-policy/route")],
    [
      /^\/api\/v1\/evaluations\/([^/]+)\/effects\/([^/]+)\/resolutions$/,
      ["id", "effectId"],
      await import("@/app/api/v1/evaluations/[id]/effects/[effectId]/resolutions/route"),
    ],
    [/^\/api\/v1\/schema\/ingest\.json$/, [], await import("@/app/api/v1/schema/ingest.json/route")],
  ],
  (handlers) => ({ db, editor, send, editorAuthorization } = handlers),
);
afterAll(async () => {
  // The route handlers' own client and API-key usage counters: written and closed before the database goes.
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
});

describe("the evaluation API", () => {
  it("refuses a run holding text PostgreSQL cannot store in any stored field, naming the field, and stores the batch's good runs", async () => {
    const { id } = await editor.createEvaluation({ name: "storable text", effectPolicy: POLICY });
    // Every string the ingest schema stores, once each: the JSON Schema's string fields must all appear here.
    const scored = {
      externalId: "full",
      taskId: "t-full",
      groupId: "g1",
      attempt: 1,
      startedAt: at(0),
      endedAt: at(9),
      scoredAt: at(8),
      endpointLabel: "success",
      terminalLabel: "success",
      score: 1,
      threshold: 0.5,
      scoredOn: [SURFACE],
      labels: { security: "failure" },
      pipeline: "gpt-guarded",
      injectionTaskId: "banking/injection_task_1",
      runClass: "agent_failure",
      runClassEvidence: "the agent gave up",
      toolCalls: [{ callId: "c1", tool: "bank.transfer", at: at(1), arguments: { to: "acct-1" }, outcome: "ok", error: "timeout" }],
      messages: [
        { role: "assistant", content: "paying", toolCalls: [{ id: "c1", tool: "bank.transfer", arguments: { to: "acct-1" } }] },
        { role: "tool", content: "done", toolCallId: "c1" },
      ],
      modelCalls: [
        { model: "gpt-4o", startedAt: at(1), durationMs: 500, inputTokens: 10, outputTokens: 2, error: "rate limited", messagePosition: 0 },
      ],
      effects: [
        {
          effectId: "e-full",
          tool: "bank.transfer",
          callId: "c1",
          tracePosition: 0,
          arguments: { amount: "10" },
          surface: SURFACE,
          controller: "bank",
          handle: "tx-full",
          requestedAt: at(1),
          acknowledgedAt: at(2),
          statusAtScoring: "pending",
          possibleTransitions: ["completed"],
          relevantUntil: at(30),
          crossRunRoute: "the balance",
          public: false,
          notes: "a note",
          resolution: { status: "completed", at: at(3), evidence: { ledger: "l-1" }, verifiedBy: "reconciler" },
        },
      ],
      touches: [{ surface: SURFACE, op: "read", at: at(1), public: false }],
      resets: [
        {
          surface: SURFACE,
          at: at(7),
          verified: true,
          evidence: "read back",
          canary: { surface: SURFACE, planted: "canary-1", found: false, evidence: "searched" },
        },
      ],
    };
    const unscored = {
      externalId: "unscored",
      taskId: "t-full",
      startedAt: at(0),
      unscoredReason: "the scorer crashed",
      effects: [
        {
          effectId: "e-text",
          tool: "bank.read",
          requestedAt: at(1),
          statusAtScoring: "completed",
          resolution: { status: "completed", at: at(2), evidence: "ledger entry" },
        },
      ],
    };
    const stringPaths = (value: unknown, path: string[] = []): string[] =>
      typeof value === "string"
        ? [path.join(".")]
        : value && typeof value === "object"
          ? Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]))
          : [];
    const generic = (p: string) => p.replace(/\.\d+(?=\.|$)/g, ".*");
    const covered = new Set([...stringPaths(scored), ...stringPaths(unscored)].map(generic));
    // The schema's string properties, by path (arrays as *; enums and free-form records' values left out: the records are walked below).
    const schemaStrings = (node: Record<string, unknown>, path: string[]): string[] => {
      const variants = (["anyOf", "oneOf"] as const).flatMap((k) => (node[k] as Record<string, unknown>[] | undefined) ?? []);
      if (node.type === "string" && !node.enum) return [path.join(".")];
      if (node.type === "array") return schemaStrings(node.items as Record<string, unknown>, [...path, "*"]);
      const properties = Object.entries((node.properties as Record<string, Record<string, unknown>> | undefined) ?? {}).flatMap(([k, v]) =>
        schemaStrings(v, [...path, k]),
      );
      return [...properties, ...variants.flatMap((v) => schemaStrings(v, path))];
    };
    const runSchema = (
      (await (await send(new Request(`${BASE_URL}/api/v1/schema/ingest.json`))).json()) as {
        properties: { runs: { items: Record<string, unknown> } };
      }
    ).properties.runs.items;
    const missing = [...new Set(schemaStrings(runSchema, []))].filter((p) => !covered.has(p));
    expect(missing).toEqual([]);

    let good = 0;
    const refuse = async (bad: unknown, field: string) => {
      const goodRun = { ...workedExample()[2]!, externalId: `good-${++good}` };
      const results = (await editor.ingestRuns(id, [bad, goodRun])).results;
      expect(
        results.map((r) => [r.status, r.error?.field]),
        field,
      ).toEqual([
        ["error", field],
        ["created", undefined],
      ]);
    };
    const withValue = (run: unknown, path: string[], replace: (old: unknown) => unknown): unknown => {
      const copy = structuredClone(run) as Record<string, unknown>;
      const parent = path.slice(0, -1).reduce((o, k) => (o as Record<string, unknown>)[k], copy as unknown) as Record<string, unknown>;
      parent[path.at(-1)!] = replace(parent[path.at(-1)!]);
      return copy;
    };
    for (const run of [scored, unscored]) {
      for (const field of stringPaths(run)) {
        await refuse(
          withValue(run, field.split("."), (v) => `${v as string}\u0000`),
          `runs.0.${field}`,
        );
        await refuse(
          withValue(run, field.split("."), (v) => `${v as string}\ud800`),
          `runs.0.${field}`,
        );
      }
    }
    // Keys of the free-form records, stored as jsonb.
    for (const record of [
      "labels",
      "toolCalls.0.arguments",
      "messages.0.toolCalls.0.arguments",
      "effects.0.arguments",
      "effects.0.resolution.evidence",
    ]) {
      const path = record.split(".");
      await refuse(
        withValue(scored, path, (v) => ({ ...(v as object), "bad\u0000key": "x" })),
        `runs.0.${record}.bad\\u0000key`,
      );
    }
    // Times PostgreSQL refuses, integers past their column.
    await refuse({ ...scored, startedAt: "0000-01-01T00:00:00Z" }, "runs.0.startedAt");
    await refuse({ ...scored, scoredAt: "2026-12-01T10:00:08+16:00" }, "runs.0.scoredAt");
    await refuse({ ...scored, attempt: 2_147_483_648 }, "runs.0.attempt");
    await refuse({ ...scored, attempt: Number.MAX_SAFE_INTEGER }, "runs.0.attempt");
    await refuse({ ...scored, effects: [{ ...scored.effects[0]!, tracePosition: 2 ** 40 }] }, "runs.0.effects.0.tracePosition");
    await refuse({ ...scored, modelCalls: [{ inputTokens: 2 ** 31 }] }, "runs.0.modelCalls.0.inputTokens");
    const stored = await db.evaluationRun.findMany({ where: { evaluationId: id }, select: { externalId: true } });
    expect(stored.map((r) => r.externalId).sort()).toEqual(Array.from({ length: good }, (_, i) => `good-${i + 1}`).sort());
    // The two good fields themselves are storable: the full runs go in.
    expect((await editor.ingestRuns(id, [scored, unscored])).results.map((r) => r.status)).toEqual(["created", "created"]);

    // Other routes: a 400 naming the field, nothing written.
    const refusals: [() => Promise<unknown>, string][] = [
      [() => editor.createEvaluation({ name: "nul\u0000name" }), "name"],
      [() => editor.createEvaluation({ name: "ok", description: "lone \udc00" }), "description"],
      [
        () => editor.createEvaluation({ name: "ok", effectPolicy: { tools: { "bank\u0000*": "external" } } }),
        "effectPolicy.tools.bank\\u0000*",
      ],
      [() => editor.setEffectPolicy(id, { tools: { "bank.read": "read_only", "x\ud800": "external" } }), "tools.x\\ud800"],
      [() => editor.appendResolution(id, "e-full", { status: "completed", at: at(31), evidence: { "k\u0000": 1 } }), "evidence.k\\u0000"],
      [() => editor.appendResolution(id, "e-full", { status: "completed", at: at(31), evidence: "seen\u0000" }), "evidence"],
      [() => editor.appendResolution(id, "e-full", { status: "completed", at: "0000-06-01T00:00:00Z", evidence: "x" }), "at"],
    ];
    for (const [request, field] of refusals) expect(await refusal(request()), field).toMatchObject({ status: 400, field });
    const runs = async (query: string) =>
      (
        await send(new Request(`${BASE_URL}/api/v1/evaluations/${id}/runs?${query}`, { headers: { authorization: editorAuthorization } }))
      ).json();
    expect(await runs("unit=9223372036854775808")).toMatchObject({ error: { code: "invalid_request", field: "unit" } });
    expect(await runs("unit=9223372036854775807")).toEqual({ runs: [], nextCursor: null });
    expect(await runs(`tool=${encodeURIComponent("bank\u0000")}`)).toMatchObject({ error: { field: "tool" } });
    expect(await db.evaluation.count({ where: { name: { in: ["ok", "nul\u0000name".replace("\u0000", "")] } } })).toBe(0);
  });
});
