import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { MAX_JSON_DEPTH } from "@/lib/http/input";
import {
  apiRefusal as refusal,
  HANDLERS_ORIGIN as BASE_URL,
  storedCounts,
  useEvaluationApiHandlers,
} from "@/lib/testing/evaluation-api-handlers";
import { at, SURFACE, WORKED_POLICY as POLICY, workedExample } from "@/lib/testing/evaluation-example";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";
import { applyPendingPolicy } from "@/lib/evaluations/policy-recompute/recompute";

// The evaluation API through its typed client, against the route handlers themselves (auth,
// parsing, error mapping) on a real PostgreSQL: the worked example of docs/evaluations.md, idempotence,
// a late resolution, and the refusals of bad input (text PostgreSQL cannot store:
// evaluations-api-storable.db.test.ts); and `npm run ingest` against those handlers served over real HTTP.
let db: Db;
let editor: EvaluationClient;
let viewer: EvaluationClient;
let send: (request: Request) => Promise<Response>;
let editorAuthorization: string;
let editorKey: string;

useEvaluationApiHandlers(
  async () => [
    [/^\/api\/v1\/evaluations$/, [], await import("@/app/api/v1/evaluations/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)$/, ["id"], await import("@/app/api/v1/evaluations/[id]/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)\/runs$/, ["id"], await import("@/app/api/v1/evaluations/[id]/runs/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)\/summary$/, ["id"], await import("@/app/api/v1/evaluations/[id]/summary/route")],
    [/^\/api\/v1\/evaluations\/([^/]+)\/effect-policy$/, ["id"], await import("@/app/api/v1/evaluations/[id]/effect-policy/route")],
    [
      /^\/api\/v1\/evaluations\/([^/]+)\/effects\/([^/]+)\/resolutions$/,
      ["id", "effectId"],
      await import("@/app/api/v1/evaluations/[id]/effects/[effectId]/resolutions/route"),
    ],
    [/^\/api\/v1\/schema\/ingest\.json$/, [], await import("@/app/api/v1/schema/ingest.json/route")],
  ],
  (handlers) => ({ db, editor, viewer, send, editorAuthorization, editorKey } = handlers),
);
afterAll(async () => {
  // The route handlers' own client and API-key usage counters: written and closed before the database goes.
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
});
const stored = (evaluationId: string) => storedCounts(db, evaluationId);

describe("the evaluation API", () => {
  it("ingests the worked example, changes nothing on a resend, appends a late resolution, and answers the figures computed by hand", async () => {
    const { id } = await editor.createEvaluation({
      name: "worked example",
      harness: "inspect",
      benchmark: "banking",
      effectPolicy: POLICY,
    });
    expect(await viewer.getEvaluation(id)).toMatchObject({
      id,
      name: "worked example",
      harness: "inspect",
      createdBy: "editor@example.test",
      effectPolicyVersion: 1,
      effectPolicy: POLICY,
    });
    expect((await editor.ingestRuns(id, workedExample())).results).toEqual(
      ["r1", "r2", "r3"].map((externalId) => ({ externalId, status: "created" })),
    );
    // By hand: r1 is unresolved (its transfer pending at scoring, no evidence); r2's transfer completed before
    // it was scored, and its terminal label disagrees; r3 has no effect. r2 read r1's write, r3 read both: one chain, one unit, two exposed runs.
    const expected = {
      evaluationId: id,
      effectPolicyVersion: 1,
      pendingPolicy: null,
      runs: 3,
      unscored: 0,
      reported: { successes: 3, n: 3 },
      final: { successes: 2, n: 2 },
      unresolved: { n: 1, byReason: { pending_at_scoring: 1 }, byTool: { "bank.transfer": 1 } },
      disagreements: { n: 1, of: 1 },
      bounds: { lower: { successes: 2, n: 3 }, upper: { successes: 3, n: 3 } },
      units: { runRows: 3, analysisUnits: 1, largest: 3 },
      exposures: { n: 2, of: 3 },
      inheritedState: { none: 1, internal: 2, public: 0 },
      // r2 is final by the evidence of its transfer's completion; r3 had nothing to wait for.
      finalBasis: { recorded_evidence: 1, no_effects: 1 },
      harnessDesigns: [],
      // No run carries a security label: none was under attack.
      attackSuccess: { reported: { successes: 0, n: 0 }, final: { successes: 0, n: 0 }, unresolved: { n: 0, byReason: {} } },
      outcomes: {},
      // No run holds a scorer's value (only Inspect's logs carry them).
      scorers: [],
      // No run recorded a model call: no tokens, of 3 runs.
      tokens: { input: 0, output: 0, runsWithTokens: 0, modelCalls: 0, runsWithModelCalls: 0, runs: 3 },
    };
    expect(await viewer.summary(id)).toEqual(expected);

    const before = await stored(id);
    const rows = await db.evaluationRun.findMany({ where: { evaluationId: id }, orderBy: { id: "asc" } });
    expect((await editor.ingestRuns(id, workedExample())).results.map((r) => r.status)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(await stored(id)).toEqual(before);
    expect(await db.evaluationRun.findMany({ where: { evaluationId: id }, orderBy: { id: "asc" } })).toEqual(rows);
    expect(await viewer.summary(id)).toEqual(expected);

    // r1's transfer completed at 10:00:08, three seconds after r1 was scored: still not final, now for that reason.
    expect(
      await editor.appendResolution(id, "e1", { status: "completed", at: at(8), evidence: { ledger: 8812 }, verifiedBy: "reconciler" }),
    ).toMatchObject({ runExternalId: "r1" });
    expect(await viewer.summary(id)).toEqual({
      ...expected,
      unresolved: { n: 1, byReason: { resolved_after_scoring: 1 }, byTool: { "bank.transfer": 1 } },
    });
    expect(await stored(id)).toEqual({ ...before, resolutions: before.resolutions + 1 });

    // A viewer reads but does not write.
    expect(await refusal(viewer.ingestRuns(id, workedExample()))).toMatchObject({ status: 403, code: "forbidden" });
    expect(await refusal(viewer.setEffectPolicy(id, POLICY))).toMatchObject({ status: 403 });
    // A new policy version is named by the summary.
    expect(await editor.setEffectPolicy(id, { tools: { "bank.*": "external" } })).toMatchObject({ version: 2, appliedVersion: 1 });
    await applyPendingPolicy(db, id);
    expect(await viewer.summary(id)).toMatchObject({
      effectPolicyVersion: 2,
      final: { successes: 2, n: 2 },
      unresolved: { n: 1, byReason: { resolved_after_scoring: 1 } },
    });
  });

  it("refuses bad input with a 4xx or a run error naming the field, and writes nothing of it", async () => {
    const { id } = await editor.createEvaluation({ name: "bad input", effectPolicy: POLICY });
    expect((await editor.ingestRuns(id, workedExample().slice(0, 2))).results.map((r) => r.status)).toEqual(["created", "created"]);
    const before = await stored(id);
    const run = (over: Record<string, unknown>) => ({ ...workedExample()[1]!, externalId: "bad", ...over });
    const effect = (over: Record<string, unknown>) => ({ ...workedExample()[1]!.effects![0]!, ...over });
    const runErrors: [unknown, string][] = [
      [run({ scoredAt: at(9) }), "runs.0.scoredAt"],
      [run({ effects: [effect({ resolution: { status: "completed", at: at(11), evidence: "x" } })] }), "runs.0.effects.0.resolution.at"],
      [run({ effects: [effect({ requestedAt: at(9) })] }), "runs.0.effects.0.requestedAt"],
      [run({ effects: [effect({}), effect({})] }), "runs.0.effects.1.effectId"],
      [run({ effects: [effect({ statusAtScoring: "maybe" })] }), "runs.0.effects.0.statusAtScoring"],
      [run({ effects: [effect({ requestedAt: "yesterday" })] }), "runs.0.effects.0.requestedAt"],
      [run({ touches: [{ surface: SURFACE, op: "delete", at: at(11) }] }), "runs.0.touches.0.op"],
      [run({ colour: "blue" }), "runs.0.colour"],
      [run({ scoredAt: undefined }), "runs.0.scoredAt"],
      [run({ endpointLabel: undefined }), "runs.0.endpointLabel"],
      // An unscored run gives a reason instead of a scoring time and label, never both.
      [run({ unscoredReason: "no score event" }), "runs.0.scoredAt"],
      [run({ scoredAt: undefined, unscoredReason: "no score event" }), "runs.0.endpointLabel"],
    ];
    for (const [bad, field] of runErrors) {
      const [result] = (await editor.ingestRuns(id, [bad])).results;
      expect(result, field).toMatchObject({ status: "error", error: { field } });
    }
    // Good runs of the batch are stored, the bad one's index is named, the duplicate is refused.
    const mixed = await editor.ingestRuns(id, [{ ...workedExample()[2]! }, run({ scoredAt: at(9) }), { ...workedExample()[2]! }]);
    expect(mixed.results.map((r) => [r.status, r.error?.field])).toEqual([
      ["created", undefined],
      ["error", "runs.1.scoredAt"],
      ["error", "runs.2.externalId"],
    ]);
    const afterMixed = await stored(id);
    expect(afterMixed.runs).toBe(before.runs + 1);

    const refusals: [() => Promise<unknown>, { status: number; field?: string; code?: string }][] = [
      [
        () => editor.createEvaluation({ name: "x", effectPolicy: { tools: { "bank.transfer": "maybe" as "external" } } }),
        { status: 400, field: "effectPolicy.tools.bank.transfer" },
      ],
      [
        () => editor.setEffectPolicy(id, { tools: { "bank.transfer": "writes" as "external" } }),
        { status: 400, field: "tools.bank.transfer" },
      ],
      [
        () => editor.appendResolution(id, "no-such-effect", { status: "completed", at: at(30), evidence: "x" }),
        { status: 404, field: "effectId" },
      ],
      [() => editor.appendResolution(id, "e2", { status: "completed", at: at(11), evidence: "x" }), { status: 400, field: "at" }],
      [
        () => editor.appendResolution(id, "e2", { status: "done" as "completed", at: at(14), evidence: "x" }),
        { status: 400, field: "status" },
      ],
      [() => editor.ingestRuns(id, []), { status: 400, field: "runs" }],
      [
        () =>
          editor.ingestRuns(
            id,
            Array.from({ length: 1_001 }, () => ({})),
          ),
        { status: 400, field: "runs" },
      ],
      [() => editor.ingestRuns("00000000-0000-4000-8000-000000000000", workedExample()), { status: 404 }],
      [() => editor.summary("not-a-uuid"), { status: 400, field: "id" }],
    ];
    for (const [request, expected] of refusals) expect(await refusal(request())).toMatchObject(expected);

    const raw = async (body: string) => {
      const response = await send(
        new Request(`${BASE_URL}/api/v1/evaluations/${id}/runs`, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", authorization: editorAuthorization },
        }),
      );
      return { status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code };
    };
    expect(
      await raw(JSON.stringify({ runs: [{ ...workedExample()[0], externalId: "huge", padding: "x".repeat(17 * 1024 * 1024) }] })),
    ).toEqual({ status: 413, code: "body_too_large" });
    expect(await raw(`{"runs":[${"[".repeat(MAX_JSON_DEPTH + 5)}${"]".repeat(MAX_JSON_DEPTH + 5)}]}`)).toEqual({
      status: 400,
      code: "too_deep",
    });
    expect(await raw("{not json")).toEqual({ status: 400, code: "malformed_json" });
    expect(await stored(id)).toEqual(afterMixed);
  });

  it("stores a run sent with unscoredReason instead of scoredAt and endpointLabel as unscored, in no rate's population", async () => {
    const { id } = await editor.createEvaluation({ name: "unscored over HTTP", effectPolicy: POLICY });
    const [scored] = workedExample();
    const {
      scoredAt: _scoredAt,
      endpointLabel: _label,
      terminalLabel: _terminal,
      ...rest
    } = { ...workedExample()[1]!, externalId: "never scored" };
    const results = await editor.ingestRuns(id, [scored!, { ...rest, unscoredReason: "the scorer crashed" }]);
    expect(results.results.map((r) => r.status)).toEqual(["created", "created"]);
    // The worked example's r1 is a success left unresolved (its effect pending at scoring); the unscored run counts only on its own.
    expect(await viewer.summary(id)).toMatchObject({
      runs: 2,
      unscored: 1,
      reported: { successes: 1, n: 1 },
      final: { successes: 0, n: 0 },
      unresolved: { n: 1 },
      bounds: { lower: { successes: 0, n: 1 }, upper: { successes: 1, n: 1 } },
      disagreements: { n: 0, of: 0 },
    });
    const unscored = await db.evaluationRun.findMany({
      where: { evaluationId: id, finality: "unscored" },
      select: { externalId: true, scoredAt: true, endpointLabel: true, unscoredReason: true },
    });
    expect(unscored).toEqual([{ externalId: "never scored", scoredAt: null, endpointLabel: null, unscoredReason: "the scorer crashed" }]);
  });

  it("serves the ingest body's JSON Schema to anyone", async () => {
    const response = await send(new Request(`${BASE_URL}/api/v1/schema/ingest.json`));
    expect(response.status).toBe(200);
    const schema = (await response.json()) as {
      properties: {
        runs: { maxItems: number; items: { required: string[]; oneOf: { required: string[] }[]; properties: Record<string, unknown> } };
      };
    };
    expect(schema.properties.runs.maxItems).toBe(1_000);
    expect(schema.properties.runs.items.required).toEqual(expect.arrayContaining(["externalId", "taskId", "startedAt"]));
    // scoredAt and endpointLabel, or unscoredReason instead (a run the harness never scored).
    expect(schema.properties.runs.items.oneOf.map((o) => o.required)).toEqual([["scoredAt", "endpointLabel"], ["unscoredReason"]]);
    expect(Object.keys(schema.properties.runs.items.properties)).toEqual(
      expect.arrayContaining(["effects", "touches", "resets", "terminalLabel", "score"]),
    );
  });
});

describe("npm run ingest", () => {
  let server: Server;
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("streams a JSONL file in batches, reports every line, and exits 1 when a line is refused", async () => {
    // The route handlers behind a real HTTP server, as `next start` would serve them.
    server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const headers = new Headers(
          Object.entries(incoming.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : [])),
        );
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        void send(new Request(`${BASE_URL}${incoming.url}`, { method: incoming.method, headers, body })).then(async (response) => {
          outgoing.writeHead(response.status, Object.fromEntries(response.headers));
          outgoing.end(Buffer.from(await response.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { id } = await editor.createEvaluation({ name: "from a file", effectPolicy: POLICY });
    const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-ingest-")), "runs.jsonl");
    const lines = [
      ...workedExample().map((run) => JSON.stringify(run)),
      "",
      "{not json",
      JSON.stringify({ ...workedExample()[2], externalId: "r4", scoredAt: at(19) }),
    ];
    writeFileSync(file, `${lines.join("\n")}\n`);
    const ingest = (env: Record<string, string>) =>
      promisify(execFile)("npx", ["tsx", "workers/ingest-cli.ts", "--evaluation", id, "--batch", "2", file], {
        env: { ...process.env, BOUNDARY_LAB_URL: url, ...env },
      }).then(
        (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
        (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
      );
    const first = await ingest({ BOUNDARY_LAB_API_KEY: editorKey });
    expect(first.code).toBe(1);
    expect(first.stdout.trim().split("\n")).toEqual([
      "1\tr1\tcreated",
      "2\tr2\tcreated",
      "3\tr3\tcreated",
      expect.stringMatching(/^5\t-\terror\tnot JSON/),
      "6\tr4\terror\tscoredAt: scoredAt is before startedAt",
    ]);
    expect(first.stderr).toMatch(/5 lines, 3 created, 0 unchanged, 0 updated, 2 refused/);
    expect((await viewer.summary(id)).runs).toBe(3);
    // Again: nothing changes; without a key, nothing is sent.
    expect((await ingest({ BOUNDARY_LAB_API_KEY: editorKey })).stdout).toMatch(/^1\tr1\tunchanged\n2\tr2\tunchanged\n3\tr3\tunchanged\n/);
    expect(await ingest({ BOUNDARY_LAB_API_KEY: "" })).toMatchObject({ code: 2, stderr: expect.stringContaining("BOUNDARY_LAB_API_KEY") });
  });
});
