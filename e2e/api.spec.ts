import { expect, test } from "./fixtures";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { replaySummarySchema } from "../lib/replay/rules/summary-schema";

// The experiments API over real HTTP against the built app, with a real worker behind it.
test.describe.configure({ mode: "serial" });

const grid = { delaysMs: [0, 25, 100], schedules: 2, repetitions: 2 };

test("an experiment created through the API runs on the worker to exactly Table 2", async ({ editorApi: request }) => {
  test.setTimeout(90_000);
  const created = await request.post("/api/v1/experiments", { data: grid });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };

  let status: { state: string; progress: { done: number; total: number } } = { state: "queued", progress: { done: 0, total: 0 } };
  await expect
    .poll(
      async () => {
        status = await (await request.get(`/api/v1/experiments/${id}`)).json();
        return status.state;
      },
      { timeout: 60_000, intervals: [250] },
    )
    .toBe("completed");
  expect(status.progress).toEqual({ done: 3 * 2 * 2 * 18, total: 216 });

  const summary = replaySummarySchema.parse(await (await request.get(`/api/v1/experiments/${id}/summary`)).json());
  expect(table2Mismatches(summary, replayConfigSchema.parse(grid))).toEqual([]);
  expect(summary.checks.filter((c) => !c.passed)).toEqual([]);
  expect(summary.classifications.completed).toBe(216);
});

test("an invalid config is refused with a 400 naming the field, and nothing is written", async ({ editorApi: request }) => {
  const before = (await (await request.get("/api/health")).json()) as object;
  expect(before).toMatchObject({ db: "ok" });
  for (const [body, field] of [
    [{ delaysMs: [0, -1] }, "delaysMs.1"],
    [{ schedules: 0 }, "schedules"],
    [{ repetitions: "ten" }, "repetitions"],
    [{ bogus: true }, "bogus"],
  ] as const) {
    const response = await request.post("/api/v1/experiments", { data: body });
    expect(response.status()).toBe(400);
    expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
  }
  const malformed = await request.post("/api/v1/experiments", { data: "{not json", headers: { "content-type": "application/json" } });
  expect(malformed.status()).toBe(400);
});

test("unknown and malformed experiment ids get 404 and 400", async ({ editorApi: request }) => {
  expect((await request.get("/api/v1/experiments/00000000-0000-4000-8000-000000000000")).status()).toBe(404);
  expect((await request.get("/api/v1/experiments/00000000-0000-4000-8000-000000000000/summary")).status()).toBe(404);
  expect((await request.get("/api/v1/experiments/not-a-uuid")).status()).toBe(400);
  expect((await request.post("/api/v1/experiments/00000000-0000-4000-8000-000000000000/cancel")).status()).toBe(404);
});

test("cancelling a running experiment stops it and leaves no operation that can still commit", async ({ editorApi: request }) => {
  test.setTimeout(60_000);
  const { id } = (await (
    await request.post("/api/v1/experiments", { data: { delaysMs: [250], schedules: 5, repetitions: 10 } })
  ).json()) as { id: string };
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/experiments/${id}`)).json()) as { progress: { done: number } }).progress.done, {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);
  const cancelled = await request.post(`/api/v1/experiments/${id}/cancel`);
  expect(cancelled.status()).toBe(200);
  expect(await cancelled.json()).toMatchObject({ state: "cancelled", quiescent: true });
  const status = (await (await request.get(`/api/v1/experiments/${id}`)).json()) as {
    state: string;
    progress: { done: number; total: number };
  };
  expect(status.state).toBe("cancelled");
  expect(status.progress.done).toBeLessThan(status.progress.total);
  // a second cancel of a cancelled experiment is harmless; it stays cancelled
  expect((await request.post(`/api/v1/experiments/${id}/cancel`)).status()).toBe(200);
});

test("a body nested 20,000 levels deep gets a 400 naming the limit, and creates nothing", async ({ editorApi: request }) => {
  const listed = async () =>
    ((await (await request.get("/api/v1/experiments?limit=500")).json()) as { experiments: unknown[] }).experiments.length;
  const before = await listed();
  // Deep inside a trace call's args, which the config schema accepts as any JSON value.
  const deep = `{"trace":{"calls":[{"tool":"t","args":${"[".repeat(20_000)}1${"]".repeat(20_000)}}]}}`;
  const response = await request.post("/api/v1/experiments", { data: deep, headers: { "content-type": "application/json" } });
  expect(response.status()).toBe(400);
  expect(((await response.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: "too_deep",
    message: expect.stringContaining("64"),
  });
  expect(await listed()).toBe(before);
});

test("experiments are listed newest first, by state and by name, in keyset pages", async ({ editorApi: request }) => {
  const tag = `list-${Date.now()}`;
  const ids: string[] = [];
  for (const name of [`${tag} alpha`, `${tag} beta`, `${tag} gamma`]) {
    const created = await request.post("/api/v1/experiments", {
      data: { ...grid, delaysMs: [0], schedules: 1, repetitions: 1, name, notes: "listed by the API test" },
    });
    expect(created.status()).toBe(201);
    ids.push(((await created.json()) as { id: string }).id);
  }
  type Page = { experiments: Array<{ id: string; name: string | null; notes: string | null; state: string }>; nextCursor: string | null };
  const first = (await (await request.get(`/api/v1/experiments?name=${encodeURIComponent(tag)}&limit=2`)).json()) as Page;
  expect(first.experiments.map((e) => e.id)).toEqual([ids[2], ids[1]]);
  expect(first.experiments[0]).toMatchObject({ name: `${tag} gamma`, notes: "listed by the API test" });
  expect(first.nextCursor).not.toBeNull();
  const second = (await (
    await request.get(`/api/v1/experiments?name=${encodeURIComponent(tag)}&limit=2&cursor=${first.nextCursor}`)
  ).json()) as Page;
  expect(second.experiments.map((e) => e.id)).toEqual([ids[0]]);
  expect(second.nextCursor).toBeNull();
  // Case-insensitive, and % is a literal character rather than a pattern.
  expect(
    (
      (await (await request.get(`/api/v1/experiments?name=${encodeURIComponent(tag.toUpperCase())}%20BETA`)).json()) as Page
    ).experiments.map((e) => e.id),
  ).toEqual([ids[1]]);
  expect(((await (await request.get(`/api/v1/experiments?name=%25${encodeURIComponent(tag)}`)).json()) as Page).experiments).toEqual([]);
  for (const [query, field] of [
    ["state=finished", "state"],
    ["cursor=bogus", "cursor"],
    ["limit=0", "limit"],
    ["colour=red", "colour"],
  ] as const) {
    const refused = await request.get(`/api/v1/experiments?${query}`);
    expect(refused.status()).toBe(400);
    expect(((await refused.json()) as { error: { field: string } }).error.field).toBe(field);
  }
  const completed = (await (await request.get("/api/v1/experiments?state=completed&limit=500")).json()) as Page;
  expect(completed.experiments.every((e) => e.state === "completed")).toBe(true);
});
