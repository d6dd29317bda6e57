import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey, createAccount } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import { readServerEnv } from "@/lib/env";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import type { MessageRecord } from "@/lib/evaluations/run-record-schema";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";
import { at } from "@/lib/testing/evaluation-example";

// GET …/runs/{externalId} as served: the run with its transcript a page at a time. The run's id
// holds slashes, as an imported one does; its 250 messages take two pages of 200.
let database: TestDatabase;
let evaluation: string;
let key: string;
let GET: typeof import("./route").GET;

const ORIGIN = "http://localhost:3999";
const EXTERNAL_ID = "gpt-4o/banking/user_task_0/none/none";
const conversation = (n: number): MessageRecord[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? { role: "assistant", content: `turn ${i}`, toolCalls: [{ id: `c${i}`, tool: "bank.transfer", arguments: { amount: i } }] }
      : { role: "tool", content: `answer ${i}`, toolCallId: `c${i - 1}` },
  );
const run = (messages: MessageRecord[]) => ({
  externalId: EXTERNAL_ID,
  taskId: "banking/user_task_0",
  startedAt: at(0),
  scoredAt: at(1),
  endpointLabel: "success" as const,
  messages,
});

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const env = { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40), BOUNDARY_LAB_URL: ORIGIN };
  Object.assign(process.env, env);
  evaluation = await createEvaluation(database.db, { name: "transcripts" }, null);
  expect((await ingestRuns(database.db, evaluation, [run(conversation(250))]))[0]).toMatchObject({ status: "created" });
  const auth = createAuth(database.db, readServerEnv(env), database.url);
  const viewer = await createAccount(auth, { email: "viewer@transcripts.test", password: "a long enough password", role: "viewer" });
  ({ key } = await createApiKey(auth, viewer.id, "transcripts"));
  ({ GET } = await import("./route"));
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

const get = (externalId: string, query = "") =>
  GET(
    new Request(`${ORIGIN}/api/v1/evaluations/${evaluation}/runs/${encodeURIComponent(externalId)}${query}`, {
      headers: { authorization: `Bearer ${key}` },
    }),
    { params: Promise.resolve({ id: evaluation, externalId }) },
  );

describe("GET /api/v1/evaluations/{id}/runs/{externalId}", () => {
  it("answers the run with its audit and the first 200 messages of its transcript, in order, as they were sent", async () => {
    const response = await get(EXTERNAL_ID);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ externalId: EXTERNAL_ID, finality: "final", messageCount: 250, nextMessagesFrom: 200 });
    expect(body.id).toBeUndefined(); // the stored id stays inside
    expect(body.messages).toHaveLength(200);
    const sent = conversation(250);
    expect(body.messages.map(({ position: _, ...m }: { position: number }) => m)).toEqual(sent.slice(0, 200));
    expect(body.messages.map((m: { position: number }) => m.position)).toEqual([...Array(200).keys()]);
  });

  it("pages on from messagesFrom, and says when the last page is reached", async () => {
    const body = await (await get(EXTERNAL_ID, "?messagesFrom=200&messagesLimit=100")).json();
    expect(body.messages.map((m: { position: number }) => m.position)).toEqual(Array.from({ length: 50 }, (_, i) => 200 + i));
    expect(body.nextMessagesFrom).toBeNull();
    expect(body.messages.at(-1)).toMatchObject({ role: "tool", content: "answer 249", toolCallId: "c248" });
  });

  it("refuses a bad page naming the field, and an unknown run with 404", async () => {
    const bad = await get(EXTERNAL_ID, "?messagesLimit=501");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ field: "messagesLimit" });
    expect((await get("no/such/run")).status).toBe(404);
  });

  it("holds the messages of the run as last sent: a changed run replaces them, one sent again unchanged keeps them", async () => {
    await ingestRuns(database.db, evaluation, [run(conversation(3))]);
    const body = await (await get(EXTERNAL_ID)).json();
    expect(body).toMatchObject({ messageCount: 3, nextMessagesFrom: null });
    expect(body.messages.map((m: { content: string }) => m.content)).toEqual(["turn 0", "answer 1", "turn 2"]);
    expect(await ingestRuns(database.db, evaluation, [run(conversation(3))])).toEqual([{ externalId: EXTERNAL_ID, status: "unchanged" }]);
    expect(await database.db.evaluationRunMessage.findMany({ select: { chunk: true, count: true } })).toEqual([{ chunk: 0, count: 3 }]);
  });
});
