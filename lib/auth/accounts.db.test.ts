import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { refusal, TEST_PASSWORD as PASSWORD, useAuthTestDatabase } from "../testing/auth-test-database";
import { createAccount, createApiKey, createFirstAdmin, listApiKeys, revokeApiKey, setAccountRole } from "./accounts";
import type { Auth } from "./auth";
import { siblingMessageSchema, type ForgetPrincipals } from "./sibling-messages";
import { PrincipalResolver, resolvePrincipal } from "./principal";

// Accounts, API keys and principals on a real PostgreSQL, through Better Auth itself; an admin's
// controls over other accounts are accounts-admin.db.test.ts's.
let db: Db;
let auth: Auth;
useAuthTestDatabase((database, betterAuth) => {
  db = database;
  auth = betterAuth;
});

describe("first-run setup", () => {
  it("creates exactly one admin when two setups race, and refuses every later one", async () => {
    const results = await Promise.allSettled([
      createFirstAdmin(auth, db, { email: "first@example.test", password: PASSWORD }),
      createFirstAdmin(auth, db, { email: "second@example.test", password: PASSWORD }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const users = await db.user.findMany();
    expect(users.map((u) => u.role)).toEqual(["admin"]);
    expect(await refusal(createFirstAdmin(auth, db, { email: "third@example.test", password: PASSWORD }))).toEqual({
      kind: "conflict",
      code: "setup_done",
      field: undefined,
    });
    // The password is stored hashed, never as given.
    const account = await db.account.findFirstOrThrow({ where: { userId: users[0]!.id } });
    expect(account.password).not.toContain(PASSWORD);
    expect(account.password!.length).toBeGreaterThan(32);
  });
});

describe("accounts", () => {
  it("refuses a taken email with a 409 naming the field, whatever its case", async () => {
    await createAccount(auth, { email: "dup@example.test", password: PASSWORD, role: "viewer" });
    expect(await refusal(createAccount(auth, { email: "DUP@example.test", password: PASSWORD, role: "editor" }))).toEqual({
      kind: "conflict",
      code: "email_taken",
      field: "email",
    });
    expect(await db.user.count({ where: { email: "dup@example.test" } })).toBe(1);
    // Two creations of one address at once: one account, the other a 409 too.
    const both = await Promise.allSettled(
      [0, 1].map(() => createAccount(auth, { email: "race@example.test", password: PASSWORD, role: "viewer" })),
    );
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await refusal(Promise.reject((both.find((r) => r.status === "rejected") as PromiseRejectedResult).reason))).toEqual({
      kind: "conflict",
      code: "email_taken",
      field: "email",
    });
    expect(await db.user.count({ where: { email: "race@example.test" } })).toBe(1);
  });

  it("never demotes the last admin, and ends a user's sessions when their role changes", async () => {
    const admin = await db.user.findFirstOrThrow({ where: { role: "admin" } });
    expect(await refusal(setAccountRole(db, admin.id, "viewer"))).toEqual({ kind: "conflict", code: "last_admin", field: "role" });
    const editor = await createAccount(auth, { email: "promoted@example.test", password: PASSWORD, role: "editor" });
    await auth.api.signInEmail({ body: { email: editor.email, password: PASSWORD } });
    expect(await db.session.count({ where: { userId: editor.id } })).toBe(1);
    await setAccountRole(db, editor.id, "admin");
    expect(await db.session.count({ where: { userId: editor.id } })).toBe(0);
    await setAccountRole(db, admin.id, "viewer"); // now allowed: another admin exists
    expect((await db.user.findUniqueOrThrow({ where: { id: admin.id } })).role).toBe("viewer");
    expect(await refusal(setAccountRole(db, "no-such-user", "viewer"))).toMatchObject({ kind: "not_found" });
  });
});

describe("principals", () => {
  it("resolves a session, an API key (stored hashed, carrying the role), and refuses revoked and made-up keys", async () => {
    const reviewer = await createAccount(auth, { email: "rev@example.test", password: PASSWORD, role: "reviewer" });
    const signedIn = await auth.api.signInEmail({ body: { email: reviewer.email, password: PASSWORD }, returnHeaders: true });
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    expect(await resolvePrincipal(auth, db, new Headers({ cookie }))).toMatchObject({
      userId: reviewer.id,
      role: "reviewer",
      via: "session",
    });

    const { key, apiKey } = await createApiKey(auth, reviewer.id, "harness");
    expect(key).toMatch(/^bl_[A-Za-z0-9]{64}$/);
    const stored = await db.apikey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(stored.key).not.toBe(key);
    expect(JSON.stringify(stored)).not.toContain(key);
    const byKey = new Headers({ authorization: `Bearer ${key}` });
    expect(await resolvePrincipal(auth, db, byKey)).toMatchObject({ userId: reviewer.id, role: "reviewer", via: "api_key" });
    // Many calls a day: no per-key daily cap.
    for (let i = 0; i < 15; i++) expect(await resolvePrincipal(auth, db, byKey)).not.toBeNull();
    expect((await listApiKeys(db, reviewer.id)).map((k) => k.name)).toEqual(["harness"]);

    // A made-up key is refused, even with a valid session cookie alongside.
    expect(await resolvePrincipal(auth, db, new Headers({ authorization: `Bearer bl_${"x".repeat(64)}`, cookie }))).toBeNull();
    // Someone else cannot revoke it (it does not exist for them); its owner can, at once.
    expect(await refusal(revokeApiKey(db, apiKey.id, { userId: "someone-else", isAdmin: false }))).toMatchObject({ kind: "not_found" });
    await revokeApiKey(db, apiKey.id, { userId: reviewer.id, isAdmin: false });
    expect(await resolvePrincipal(auth, db, byKey)).toBeNull();
  });

  it("gives no principal to a banned user's key or an unknown role", async () => {
    const viewer = await createAccount(auth, { email: "banned@example.test", password: PASSWORD, role: "viewer" });
    const { key } = await createApiKey(auth, viewer.id, "k");
    const headers = new Headers({ authorization: `Bearer ${key}` });
    expect(await resolvePrincipal(auth, db, headers)).not.toBeNull();
    await db.user.update({ where: { id: viewer.id }, data: { banned: true } });
    expect(await resolvePrincipal(auth, db, headers)).toBeNull();
  });
});

describe("cached principals", () => {
  const TTL_MS = 2_000;
  let now = 1_000_000;
  const resolver = () => new PrincipalResolver(auth, db, { ttlMs: TTL_MS, now: () => now });

  it("trusts a verified key for the TTL only: a revocation elsewhere is seen once it passes, one made here at once", async () => {
    const editor = await createAccount(auth, { email: "cache-editor@example.test", password: PASSWORD, role: "editor" });
    const { key, apiKey } = await createApiKey(auth, editor.id, "cached");
    const headers = new Headers({ authorization: `Bearer ${key}` });
    const here = resolver();
    expect(await here.resolve(headers)).toMatchObject({ userId: editor.id, via: "api_key" });

    // Revoked by another process (straight in the database): this one still trusts it until the TTL passes.
    await db.apikey.delete({ where: { id: apiKey.id } });
    now += TTL_MS - 1;
    expect(await here.resolve(headers)).not.toBeNull();
    now += 1;
    expect(await here.resolve(headers)).toBeNull();

    // Revoked through this process: refused at once.
    const second = await createApiKey(auth, editor.id, "second");
    const secondHeaders = new Headers({ authorization: `Bearer ${second.key}` });
    expect(await here.resolve(secondHeaders)).not.toBeNull();
    await revokeApiKey(db, second.apiKey.id, { userId: editor.id, isAdmin: false });
    here.forgetApiKey(second.apiKey.id);
    expect(await here.resolve(secondHeaders)).toBeNull();
  });

  it("sees a deactivated user and an ended session within the TTL, and at once after forgetUser or clear", async () => {
    const viewer = await createAccount(auth, { email: "cache-viewer@example.test", password: PASSWORD, role: "viewer" });
    const signedIn = await auth.api.signInEmail({ body: { email: viewer.email, password: PASSWORD }, returnHeaders: true });
    const cookie = new Headers({ cookie: signedIn.headers.get("set-cookie")!.split(";")[0]! });
    const { key } = await createApiKey(auth, viewer.id, "k");
    const byKey = new Headers({ authorization: `Bearer ${key}` });
    const here = resolver();
    expect(await here.resolve(cookie)).toMatchObject({ userId: viewer.id, via: "session" });
    expect(await here.resolve(byKey)).toMatchObject({ userId: viewer.id, via: "api_key" });

    await db.user.update({ where: { id: viewer.id }, data: { banned: true } });
    await db.session.deleteMany({ where: { userId: viewer.id } });
    expect(await here.resolve(byKey)).not.toBeNull(); // within the TTL
    now += TTL_MS;
    expect(await here.resolve(byKey)).toBeNull();
    expect(await here.resolve(cookie)).toBeNull();

    await db.user.update({ where: { id: viewer.id }, data: { banned: false } });
    now += TTL_MS;
    expect(await here.resolve(byKey)).not.toBeNull();
    await db.user.update({ where: { id: viewer.id }, data: { banned: true } });
    here.forgetUser(viewer.id);
    expect(await here.resolve(byKey)).toBeNull();
  });

  it("tells the instance's other processes what it forgot, and they forget it at once", async () => {
    const editor = await createAccount(auth, { email: "cache-siblings@example.test", password: PASSWORD, role: "editor" });
    const { key, apiKey } = await createApiKey(auth, editor.id, "siblings");
    const byKey = new Headers({ authorization: `Bearer ${key}` });
    // Two web processes, wired as the primary relays their messages (lib/auth/sibling-messages.ts).
    const sibling = resolver();
    const announced: ForgetPrincipals[] = [];
    const here = new PrincipalResolver(auth, db, {
      ttlMs: TTL_MS,
      now: () => now,
      announce: (forget) => (announced.push(forget), sibling.forget(forget)),
    });
    expect(await here.resolve(byKey)).not.toBeNull();
    expect(await sibling.resolve(byKey)).not.toBeNull();

    await db.user.update({ where: { id: editor.id }, data: { banned: true } });
    here.forgetUser(editor.id);
    expect(await sibling.resolve(byKey)).toBeNull(); // within the TTL, refused because it heard
    await db.user.update({ where: { id: editor.id }, data: { banned: false } });
    here.forgetUser(editor.id);
    expect(await sibling.resolve(byKey)).not.toBeNull();

    await revokeApiKey(db, apiKey.id, { userId: editor.id, isAdmin: false });
    here.forgetApiKey(apiKey.id);
    expect(await sibling.resolve(byKey)).toBeNull();
    here.clear();
    expect(announced).toEqual([{ userId: editor.id }, { userId: editor.id }, { apiKeyId: apiKey.id }, { all: true }]);
    expect(siblingMessageSchema.parse({ type: "boundary-lab:forget-principals", forget: announced[2] }).forget).toEqual({
      apiKeyId: apiKey.id,
    });
  });

  it("looks a credential up once per TTL, however many requests carry it at once", async () => {
    const editor = await createAccount(auth, { email: "cache-queries@example.test", password: PASSWORD, role: "editor" });
    const { key } = await createApiKey(auth, editor.id, "q");
    const headers = new Headers({ authorization: `Bearer ${key}` });
    let verifications = 0;
    const counting = {
      ...auth,
      api: { ...auth.api, verifyApiKey: ((input) => (verifications++, auth.api.verifyApiKey(input))) as Auth["api"]["verifyApiKey"] },
    } as Auth;
    const here = new PrincipalResolver(counting, db, { ttlMs: TTL_MS, now: () => now });
    const burst = async () =>
      (await Promise.all(Array.from({ length: 20 }, () => here.resolve(headers)))).every((p) => p?.userId === editor.id);
    expect(await burst()).toBe(true);
    expect(verifications).toBe(1);
    now += TTL_MS - 1;
    expect(await burst()).toBe(true);
    expect(verifications).toBe(1);
    now += 1;
    expect(await burst()).toBe(true);
    expect(verifications).toBe(2);
    expect(await here.resolve(new Headers())).toBeNull();
    expect(verifications).toBe(2);
  });

  it("writes API keys' usage in one batch: request_count gains every use, last_request moves forward", async () => {
    const editor = await createAccount(auth, { email: "cache-usage@example.test", password: PASSWORD, role: "editor" });
    const { key, apiKey } = await createApiKey(auth, editor.id, "usage");
    const headers = new Headers({ authorization: `Bearer ${key}` });
    const here = resolver();
    const countBefore = (await db.apikey.findUniqueOrThrow({ where: { id: apiKey.id } })).requestCount ?? 0;
    for (let i = 0; i < 7; i++) await here.resolve(headers);
    now = Date.parse("2030-01-01T00:00:00Z");
    await here.resolve(headers);
    await here.flushUsage();
    const after = await db.apikey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect((after.requestCount ?? 0) - countBefore).toBe(8);
    expect(after.lastRequest?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    await here.flushUsage(); // nothing counted since: nothing written
    expect((await db.apikey.findUniqueOrThrow({ where: { id: apiKey.id } })).requestCount).toBe(after.requestCount);
  });
});

// ---------------------------------------------------------------------------------------------
// An admin's controls over other accounts: deactivation and reactivation, password reset, and
// every API key with its owner.
