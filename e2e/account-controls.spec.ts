import { request, type APIRequestContext } from "@playwright/test";
import { accounts, bearer } from "./accounts";
import { apiAs, BASE_URL, expect, test } from "./fixtures";

// The server side of the admin's and editor's controls, over real HTTP against the built app (the
// pages are tested in Chromium elsewhere): deactivating a user stops their API key and session at
// once, reactivating restores the key; a password reset; naming an experiment; one resource's
// share links.
test.describe.configure({ mode: "serial" });

const USER = { email: "deactivated.editor@e2e.test", password: "initial password 123", reset: "password set by the admin" };

/** A client at its own address (sign-in is limited per address), sending Origin as a browser would. */
const client = (address: string, headers: Record<string, string> = {}) =>
  request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL, "x-forwarded-for": address, ...headers } });

/** A signed-in session (its cookie kept by the client), or the status that refused it. */
async function signIn(address: string, email: string, password: string): Promise<{ status: number; session: APIRequestContext }> {
  const session = await client(address);
  const status = (await session.post("/api/auth/sign-in/email", { data: { email, password } })).status();
  return { status, session };
}

const errorOf = async (response: { json(): Promise<unknown> }) =>
  ((await response.json()) as { error: { code: string; field?: string } }).error;

let admin: APIRequestContext;
let userId = "";
test.beforeAll(async () => {
  admin = await apiAs("admin");
});
test.afterAll(async () => {
  await admin.dispose();
});

test("an admin deactivates a user: their API key gets 401 at once and their session ends; reactivated, the key works again", async () => {
  const created = await admin.post("/api/v1/users", { data: { email: USER.email, password: USER.password, role: "editor" } });
  expect(created.status()).toBe(201);
  userId = ((await created.json()) as { id: string }).id;
  const made = await admin.post("/api/v1/api-keys", { data: { name: "their harness", userId } });
  expect(made.status()).toBe(201);
  const { key, apiKey } = (await made.json()) as { key: string; apiKey: { id: string; owner: { email: string } } };
  expect(apiKey.owner.email).toBe(USER.email);
  const script = await client("10.8.0.1", bearer(key));
  const { status, session } = await signIn("10.8.0.2", USER.email, USER.password);
  expect(status).toBe(200);
  expect((await script.get("/api/v1/me")).status()).toBe(200);
  expect(await (await session.get("/api/v1/me")).json()).toMatchObject({ email: USER.email, via: "session" });

  const deactivated = await admin.post(`/api/v1/users/${userId}/deactivate`, { data: { reason: "left the project" } });
  expect(deactivated.status()).toBe(200);
  expect(await deactivated.json()).toEqual({
    id: userId,
    email: USER.email,
    name: USER.email,
    role: "editor",
    createdAt: expect.any(String),
    active: false,
    deactivatedReason: "left the project",
  });
  // At once: the key was verified a moment ago, and is refused now.
  expect((await script.get("/api/v1/me")).status()).toBe(401);
  expect((await script.post("/api/v1/experiments", { data: { schedules: 0 } })).status()).toBe(401);
  expect((await session.get("/api/v1/me")).status()).toBe(401);
  expect((await signIn("10.8.0.3", USER.email, USER.password)).status).toBe(403);

  // The admin's lists say so.
  const users = ((await (await admin.get("/api/v1/users")).json()) as { users: Array<{ id: string; active: boolean }> }).users;
  expect(users.find((u) => u.id === userId)).toMatchObject({ active: false });
  expect(users.find((u) => u.id === accounts().users.admin.id)).toMatchObject({ active: true });
  const keys = (
    (await (await admin.get("/api/v1/api-keys?all=true")).json()) as {
      apiKeys: Array<{ id: string; owner: { email: string }; lastUsedAt: string | null }>;
    }
  ).apiKeys;
  expect(keys.find((k) => k.id === apiKey.id)).toMatchObject({ owner: { id: userId, email: USER.email, name: USER.email, active: false } });
  // Every user's keys, each with its owner.
  expect(keys.some((k) => k.owner.email === accounts().users.viewer.email)).toBe(true);

  const reactivated = await admin.post(`/api/v1/users/${userId}/reactivate`);
  expect(reactivated.status()).toBe(200);
  expect(await reactivated.json()).toMatchObject({ id: userId, active: true, deactivatedReason: null });
  expect(await (await script.get("/api/v1/me")).json()).toMatchObject({ email: USER.email, role: "editor", via: "api_key" });
  // The ended session stays ended.
  expect((await session.get("/api/v1/me")).status()).toBe(401);
  await Promise.all([script.dispose(), session.dispose()]);
});

test("an admin cannot deactivate themself; only admins deactivate or reset passwords; a bad reason is refused naming it", async () => {
  const self = await admin.post(`/api/v1/users/${accounts().users.admin.id}/deactivate`);
  expect(self.status()).toBe(409);
  expect((await errorOf(self)).code).toBe("cannot_deactivate_self");
  const editor = await apiAs("editor");
  expect((await editor.post(`/api/v1/users/${userId}/deactivate`)).status()).toBe(403);
  expect((await editor.post(`/api/v1/users/${userId}/password`, { data: { password: USER.reset } })).status()).toBe(403);
  await editor.dispose();
  const reason = await admin.post(`/api/v1/users/${userId}/deactivate`, { data: { reason: "" } });
  expect(reason.status()).toBe(400);
  expect((await errorOf(reason)).field).toBe("reason");
  expect(await (await admin.get("/api/v1/users")).json()).toMatchObject({
    users: expect.arrayContaining([expect.objectContaining({ id: userId, active: true })]),
  });
});

test("an admin resets a password: the old one is refused, the new one signs in, their sessions end", async () => {
  const before = await signIn("10.8.1.1", USER.email, USER.password);
  expect(before.status).toBe(200);
  const short = await admin.post(`/api/v1/users/${userId}/password`, { data: { password: "short" } });
  expect(short.status()).toBe(400);
  expect((await errorOf(short)).field).toBe("password");

  const reset = await admin.post(`/api/v1/users/${userId}/password`, { data: { password: USER.reset } });
  expect(reset.status()).toBe(204);
  expect((await before.session.get("/api/v1/me")).status()).toBe(401);
  expect((await signIn("10.8.1.2", USER.email, USER.password)).status).toBe(401);
  const after = await signIn("10.8.1.3", USER.email, USER.reset);
  expect(after.status).toBe(200);
  expect(await (await after.session.get("/api/v1/me")).json()).toMatchObject({ email: USER.email });
  expect((await admin.post("/api/v1/users/no-such-user/password", { data: { password: USER.reset } })).status()).toBe(404);
  await Promise.all([before.session.dispose(), after.session.dispose()]);
});

test("an editor names and annotates an experiment, finds it by name, and clears the name", async ({ editorApi }) => {
  const id = accounts().experimentId;
  const named = await editorApi.patch(`/api/v1/experiments/${id}`, { data: { name: "  e2e labelled run  ", notes: "why we ran it" } });
  expect(named.status()).toBe(200);
  expect(await named.json()).toEqual({ id, name: "e2e labelled run", notes: "why we ran it" });
  expect(await (await editorApi.get(`/api/v1/experiments/${id}`)).json()).toMatchObject({
    id,
    name: "e2e labelled run",
    notes: "why we ran it",
  });
  const found = (await (await editorApi.get("/api/v1/experiments?name=LABELLED")).json()) as { experiments: Array<{ id: string }> };
  expect(found.experiments.map((e) => e.id)).toEqual([id]);

  for (const [body, field] of [
    [{ name: "" }, "name"],
    [{ name: "x".repeat(201) }, "name"],
    [{ notes: "x".repeat(4001) }, "notes"],
    [{ state: "completed" }, "state"],
  ] as const) {
    const refused = await editorApi.patch(`/api/v1/experiments/${id}`, { data: body });
    expect(refused.status()).toBe(400);
    expect((await errorOf(refused)).field).toBe(field);
  }
  expect((await editorApi.patch("/api/v1/experiments/00000000-0000-4000-8000-000000000000", { data: { name: "x" } })).status()).toBe(404);
  const viewer = await apiAs("viewer");
  expect((await viewer.patch(`/api/v1/experiments/${id}`, { data: { name: "not mine to name" } })).status()).toBe(403);
  await viewer.dispose();

  // Cleared again, as the other specs found it.
  expect(await (await editorApi.patch(`/api/v1/experiments/${id}`, { data: { name: null, notes: null } })).json()).toEqual({
    id,
    name: null,
    notes: null,
  });
});

test("a resource's share panel lists its links: an editor's own, an admin's everyone's, each with status, uses and last use", async ({
  editorApi,
}) => {
  const id = accounts().experimentId;
  const share = async (api: APIRequestContext) => {
    const created = await api.post("/api/v1/share-links", { data: { resourceType: "experiment", resourceId: id } });
    expect(created.status()).toBe(201);
    return (await created.json()) as { url: string; link: { id: string } };
  };
  const editors = await share(editorApi);
  const admins = await share(admin);
  const token = new URL(editors.url).pathname.split("/").pop()!;
  const reader = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { "x-forwarded-for": "10.8.2.1" } });
  expect((await reader.get(`/api/v1/shared/${token}`)).status()).toBe(200);
  await reader.dispose();
  expect((await editorApi.post(`/api/v1/share-links/${editors.link.id}/revoke`)).status()).toBe(200);

  type Listed = { id: string; status: string; uses: number; lastUsedAt: string | null; createdBy: { email: string } };
  const panel = async (api: APIRequestContext) =>
    ((await (await api.get(`/api/v1/share-links?resourceType=experiment&resourceId=${id}`)).json()) as { shareLinks: Listed[] }).shareLinks;
  const editorsView = await panel(editorApi);
  expect(editorsView.map((l) => l.createdBy.email)).toEqual(editorsView.map(() => accounts().users.editor.email));
  expect(editorsView.find((l) => l.id === editors.link.id)).toMatchObject({ status: "revoked", uses: 1, lastUsedAt: expect.any(String) });
  expect(editorsView.find((l) => l.id === admins.link.id)).toBeUndefined();
  const adminsView = await panel(admin);
  expect(adminsView.slice(0, 2).map((l) => [l.id, l.status])).toEqual([
    [admins.link.id, "active"],
    [editors.link.id, "revoked"],
  ]);
  expect(JSON.stringify(adminsView)).not.toContain(token);

  const missingId = await editorApi.get("/api/v1/share-links?resourceType=experiment");
  expect(missingId.status()).toBe(400);
  expect((await errorOf(missingId)).field).toBe("resourceId");
  expect((await admin.post(`/api/v1/share-links/${admins.link.id}/revoke`)).status()).toBe(200);
});
