import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccount, createApiKey } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { importReportSchema } from "@/lib/importers/report";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { AGENTDOJO_RUNS, INSPECT_LOGS } from "@/lib/testing/importer-fixtures";
import { evaluationSummarySchema } from "@/lib/evaluations/read/read-boundary";
import { RUBRIC, twoScorerLedgerLog } from "@/lib/testing/two-scorer-inspect-log";
import { zipArchive } from "@/lib/testing/zip";

// The import route against its handler (auth, query parsing, the body streamed to the importer) on a real PostgreSQL.
let database: TestDatabase;
let upload: (query: string, body: BodyInit | null, role?: "editor" | "viewer") => Promise<Response>;
const keys = new Map<string, string>();

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  Object.assign(process.env, { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "s".repeat(40), BOUNDARY_LAB_URL: "http://localhost:3999" });
  const auth = createAuth(database.db, readServerEnv(), database.url);
  for (const role of ["editor", "viewer"] as const) {
    const account = await createAccount(auth, { email: `${role}@example.test`, password: "a password long enough", role });
    keys.set(role, (await createApiKey(auth, account.id, "import")).key);
  }
  // Imported once the environment names the test database: the handler's getDb() reads it.
  const { POST } = await import("@/app/api/v1/imports/route");
  upload = (query, body, role = "editor") =>
    POST(
      new Request(`http://localhost:3999/api/v1/imports?${query}`, {
        method: "POST",
        body,
        headers: { authorization: `Bearer ${keys.get(role)}`, "content-type": "application/octet-stream" },
      }),
      { params: Promise.resolve({}) },
    );
});
afterAll(async () => {
  await database?.drop();
});

const AGENTDOJO_LOG = "runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json";

describe("POST /api/v1/imports", () => {
  it("imports an uploaded log, then finds it unchanged", async () => {
    const body = readFileSync(`${AGENTDOJO_RUNS}${AGENTDOJO_LOG}`);
    const first = await upload(`file=${AGENTDOJO_LOG}`, body);
    expect(first.status).toBe(200);
    expect(importReportSchema.parse(await first.json())).toMatchObject({
      files: 1,
      imported: 1,
      unchanged: 0,
      runs: 1,
      evaluations: [{ name: "AgentDojo gpt-4o-2024-05-13", runs: 1 }],
    });
    const again = importReportSchema.parse(await (await upload(`file=${AGENTDOJO_LOG}`, body)).json());
    expect(again).toMatchObject({ imported: 0, unchanged: 1 });
  });

  it("an .eval archive into a named evaluation with a threshold", async () => {
    const body = readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`);
    const report = importReportSchema.parse(await (await upload("file=streaming.eval&evaluation=uploaded&threshold=0.5", body)).json());
    expect(report).toMatchObject({ imported: 1, runs: 4, evaluations: [{ name: "uploaded", runs: 4 }] });
  });

  it("a file that is not a log: skipped, named by its upload name", async () => {
    const report = importReportSchema.parse(await (await upload("file=notes.txt", "hello")).json());
    expect(report.skipped).toEqual([{ file: "notes.txt", reason: expect.stringContaining("neither JSON nor a zip archive") }]);
  });

  it("a zip of several logs: each imported or skipped, named inside the zip", async () => {
    const body = zipArchive([
      { name: "logs/a.json", data: readFileSync(`${AGENTDOJO_RUNS}runs__gemini-2.0-flash-001__travel__user_task_0__none__none.json`) },
      { name: "logs/b.eval", data: readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_message_deduplication.eval`) },
      { name: "logs/broken.json", data: '{"suite_name": "banking", "mess' },
    ]);
    const report = importReportSchema.parse(await (await upload("file=several.zip", new Uint8Array(body))).json());
    expect(report).toMatchObject({ files: 3, imported: 2, failed: [] });
    expect(report.skipped).toEqual([{ file: "several.zip/logs/broken.json", reason: expect.stringContaining("is the file truncated?") }]);
  });

  it("refuses a viewer, a missing file name and a bad threshold", async () => {
    expect((await upload(`file=x.json`, "{}", "viewer")).status).toBe(403);
    const missing = await upload("", "{}");
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { field: string } }).error.field).toBe("file");
    expect((await upload("file=x.json&threshold=high", "{}")).status).toBe(400);
  });

  it("scorer: a log without it is refused naming the field, nothing stored; with it, its values label the runs and the summary gives every scorer's rate", async () => {
    const { eval: body } = await twoScorerLedgerLog();
    const refused = await upload("file=ledger.eval&evaluation=by scorer&scorer=includes", new Uint8Array(body));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: {
        code: "invalid_request",
        message: `scorer: this log has no scorer named includes (its scorers: ${RUBRIC}, match): nothing of it was imported`,
        field: "scorer",
      },
    });
    expect(await database.db.evaluation.count({ where: { name: "by scorer" } })).toBe(0);

    const report = importReportSchema.parse(
      await (await upload("file=ledger.eval&evaluation=by scorer&scorer=match", new Uint8Array(body))).json(),
    );
    expect(report).toMatchObject({ imported: 1, unlabelled: [], evaluations: [{ name: "by scorer", runs: 24 }] });
    const { GET } = await import("@/app/api/v1/evaluations/[id]/summary/route");
    const answer = await GET(
      new Request(`http://localhost:3999/api/v1/evaluations/${report.evaluations[0]!.id}/summary`, {
        headers: { authorization: `Bearer ${keys.get("viewer")}` },
      }),
      { params: Promise.resolve({ id: report.evaluations[0]!.id }) },
    );
    expect(answer.status).toBe(200);
    const summary = evaluationSummarySchema.parse(await answer.json());
    expect(summary.scorers.map(({ name, labelling, successes, n, unreadable }) => ({ name, labelling, successes, n, unreadable }))).toEqual(
      [
        { name: "match", labelling: true, successes: summary.reported.successes, n: summary.reported.n, unreadable: 0 },
        { name: RUBRIC, labelling: false, successes: 0, n: 0, unreadable: summary.reported.n },
      ],
    );
    expect(summary.scorers[0]!.metrics).toEqual({ accuracy: 0.6, stderr: 0.24494897427831783 });
  });
});
