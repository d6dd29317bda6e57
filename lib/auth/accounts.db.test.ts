import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { readServerEnv } from "../env";
import { DomainError } from "../errors";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import {
  createAccount,
  createApiKey,
  createFirstAdmin,
  listAccounts,
  listApiKeys,
  revokeApiKey,
  setAccountRole,
  type AccountView,
} from "./accounts";
import { createAuth, type Auth } from "./auth";
import type { Role } from "./permissions";
import { siblingMessageSchema, type ForgetPrincipals } from "./sibling-messages";
import { PrincipalResolver, resolvePrincipal } from "./principal";
import { resetAccountPassword } from "./reset-account-password";
import { setAccountActive } from "./set-account-active";

// Accounts, API keys and principals on a real PostgreSQL, through Better Auth itself.
let database: TestDatabase;
let db: Db;
let auth: Auth;
const PASSWORD = "a password long enough";
const BASE_URL = "http://localhost:3999";

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  auth = createAuth(db, readServerEnv({ BOUNDARY_LAB_URL: BASE_URL, BETTER_AUTH_SECRET: "x".repeat(40) }), database.url);
});
afterAll(async () => {
  await database?.drop();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? { kind: error.kind, code: error.code, field: error.field } : error),
  );

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

const CONTROLS_TTL_MS = 2_000;
let n = 0;
const account = (role: Role, email = `${role}-${++n}@example.test`) => createAccount(auth, { email, password: PASSWORD, role });
const actor = (a: AccountView) => ({ userId: a.id, email: a.email });

/** Signs in and answers the session cookie, as a browser would hold it. */
async function signIn(email: string, password = PASSWORD): Promise<Headers> {
  const signedIn = await auth.api.signInEmail({ body: { email, password }, returnHeaders: true });
  return new Headers({ cookie: signedIn.headers.get("set-cookie")!.split(";")[0]! });
}
const signInRefusal = (email: string, password: string) =>
  auth.api.signInEmail({ body: { email, password } }).then(
    () => null,
    (error: { status?: string; body?: { code?: string } }) => `${error.status} ${error.body?.code}`,
  );

describe("deactivating and reactivating an account", () => {
  it("ends the user's sessions, refuses their API key at once in this process and their sign-in; reactivating restores key and sign-in", async () => {
    const admin = await account("admin");
    const editor = await account("editor");
    const session = await signIn(editor.email);
    const { key } = await createApiKey(auth, editor.id, "harness");
    const byKey = new Headers({ authorization: `Bearer ${key}` });
    let now = 1_000_000;
    const here = new PrincipalResolver(auth, db, { ttlMs: CONTROLS_TTL_MS, now: () => now });
    const elsewhere = new PrincipalResolver(auth, db, { ttlMs: CONTROLS_TTL_MS, now: () => now });
    for (const resolver of [here, elsewhere]) {
      expect(await resolver.resolve(byKey)).toMatchObject({ userId: editor.id, via: "api_key" });
      expect(await resolver.resolve(session)).toMatchObject({ userId: editor.id, via: "session" });
    }

    const deactivated = await setAccountActive(db, { userId: editor.id, active: false, actor: actor(admin), reason: "left the project" });
    here.forgetUser(editor.id); // what the route does
    expect(deactivated).toMatchObject({
      id: editor.id,
      email: editor.email,
      role: "editor",
      active: false,
      deactivatedReason: "left the project",
    });
    expect(await db.session.count({ where: { userId: editor.id } })).toBe(0);
    const banned = await db.user.findUniqueOrThrow({ where: { id: editor.id } });
    expect({ banned: banned.banned, banReason: banned.banReason }).toEqual({ banned: true, banReason: "left the project" });
    // This process: refused at once. Another process: within its TTL.
    expect(await here.resolve(byKey)).toBeNull();
    expect(await here.resolve(session)).toBeNull();
    expect(await elsewhere.resolve(byKey)).not.toBeNull();
    now += CONTROLS_TTL_MS;
    expect(await elsewhere.resolve(byKey)).toBeNull();
    expect(await elsewhere.resolve(session)).toBeNull();
    expect(await signInRefusal(editor.email, PASSWORD)).toBe("FORBIDDEN BANNED_USER");
    expect((await listAccounts(db)).find((a) => a.id === editor.id)).toMatchObject({
      active: false,
      deactivatedReason: "left the project",
    });

    // Deactivating again changes nothing but the reason; the default reason names the admin.
    expect(await setAccountActive(db, { userId: editor.id, active: false, actor: actor(admin) })).toMatchObject({
      active: false,
      deactivatedReason: `deactivated by ${admin.email}`,
    });

    const reactivated = await setAccountActive(db, { userId: editor.id, active: true, actor: actor(admin) });
    here.forgetUser(editor.id); // drops the cached refusal too
    expect(reactivated).toMatchObject({ id: editor.id, active: true, deactivatedReason: null });
    expect(await here.resolve(byKey)).toMatchObject({ userId: editor.id, role: "editor", via: "api_key" });
    // The ended session stays ended; signing in works again.
    expect(await here.resolve(session)).toBeNull();
    expect(await here.resolve(await signIn(editor.email))).toMatchObject({ userId: editor.id, via: "session" });
    // Reactivating an active account is a no-op.
    expect(await setAccountActive(db, { userId: editor.id, active: true, actor: actor(admin) })).toMatchObject({ active: true });
  });

  it("refuses to deactivate oneself, or the last active admin, and an unknown user", async () => {
    await db.user.updateMany({ where: { role: "admin" }, data: { banned: true } }); // only the admins below are active
    const first = await account("admin");
    const second = await account("admin");
    expect(await refusal(setAccountActive(db, { userId: first.id, active: false, actor: actor(first) }))).toEqual({
      kind: "conflict",
      code: "cannot_deactivate_self",
    });
    expect(await refusal(setAccountActive(db, { userId: "no-such-user", active: false, actor: actor(first) }))).toMatchObject({
      kind: "not_found",
    });
    // Two admins deactivating each other at once: one wins, the other is refused, one stays active.
    const race = await Promise.allSettled([
      setAccountActive(db, { userId: second.id, active: false, actor: actor(first) }),
      setAccountActive(db, { userId: first.id, active: false, actor: actor(second) }),
    ]);
    expect(race.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = race.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ kind: "conflict", code: "last_admin" });
    expect(await db.user.count({ where: { id: { in: [first.id, second.id] }, banned: false } })).toBe(1);
    const survivor = (await db.user.findFirstOrThrow({ where: { id: { in: [first.id, second.id] }, banned: false } })).id;

    // The deactivated admin does not count as one: the active one cannot be demoted either.
    expect(await refusal(setAccountRole(db, survivor, "viewer"))).toEqual({ kind: "conflict", code: "last_admin", field: "role" });
    // A deactivated admin can be demoted and deactivated again freely.
    const other = survivor === first.id ? second : first;
    expect(await setAccountRole(db, other.id, "editor")).toMatchObject({ role: "editor", active: false });
  });
});

describe("resetting a password", () => {
  it("refuses the old password, signs in with the new one, and ends every session of the user", async () => {
    const reviewer = await account("reviewer");
    const session = await signIn(reviewer.email);
    await signIn(reviewer.email);
    expect(await db.session.count({ where: { userId: reviewer.id } })).toBe(2);
    const before = (await db.account.findFirstOrThrow({ where: { userId: reviewer.id, providerId: "credential" } })).password;
    const here = new PrincipalResolver(auth, db, { ttlMs: CONTROLS_TTL_MS, now: () => 0 });
    expect(await here.resolve(session)).not.toBeNull();

    const NEW_PASSWORD = "a brand new password 42";
    await resetAccountPassword(auth, db, reviewer.id, NEW_PASSWORD);
    here.forgetUser(reviewer.id);
    expect(await db.session.count({ where: { userId: reviewer.id } })).toBe(0);
    expect(await here.resolve(session)).toBeNull();
    const after = (await db.account.findFirstOrThrow({ where: { userId: reviewer.id, providerId: "credential" } })).password!;
    expect(after).not.toBe(before);
    expect(after).not.toContain(NEW_PASSWORD);
    expect(await signInRefusal(reviewer.email, PASSWORD)).toBe("UNAUTHORIZED INVALID_EMAIL_OR_PASSWORD");
    expect(await here.resolve(await signIn(reviewer.email, NEW_PASSWORD))).toMatchObject({ userId: reviewer.id, via: "session" });
  });

  it("gives a password to an account that had none, and refuses an unknown user", async () => {
    const viewer = await account("viewer");
    await db.account.deleteMany({ where: { userId: viewer.id } });
    await resetAccountPassword(auth, db, viewer.id, "the first password here");
    expect(await db.account.count({ where: { userId: viewer.id, providerId: "credential" } })).toBe(1);
    await signIn(viewer.email, "the first password here");
    expect(await refusal(resetAccountPassword(auth, db, "no-such-user", "whatever password 1"))).toMatchObject({ kind: "not_found" });
  });
});

describe("API keys with their owners", () => {
  it("lists every key with its owner's email, name and state, and its last use", async () => {
    const a = await createAccount(auth, { email: "owner-a@example.test", password: PASSWORD, name: "Owner A", role: "editor" });
    const b = await createAccount(auth, { email: "owner-b@example.test", password: PASSWORD, name: "Owner B", role: "viewer" });
    const created = await createApiKey(auth, a.id, "a's key");
    expect(created.apiKey.owner).toEqual({ id: a.id, email: a.email, name: "Owner A", active: true });
    const bKey = await createApiKey(auth, b.id, "b's key");
    const resolver = new PrincipalResolver(auth, db, { now: () => Date.parse("2031-01-02T03:04:05Z") });
    await resolver.resolve(new Headers({ authorization: `Bearer ${bKey.key}` }));
    await resolver.flushUsage();
    await setAccountActive(db, { userId: b.id, active: false, actor: { userId: a.id, email: a.email } });

    // A key made for a deactivated user says so (it works once they are reactivated).
    expect((await createApiKey(auth, b.id, "b's second key")).apiKey.owner).toMatchObject({ id: b.id, active: false });

    const all = await listApiKeys(db);
    expect(all.find((k) => k.id === created.apiKey.id)).toMatchObject({
      name: "a's key",
      userId: a.id,
      owner: { id: a.id, email: a.email, name: "Owner A", active: true },
      lastUsedAt: null,
    });
    expect(all.find((k) => k.id === bKey.apiKey.id)).toMatchObject({
      owner: { email: b.email, name: "Owner B", active: false },
      lastUsedAt: "2031-01-02T03:04:05.000Z",
    });
    expect((await listApiKeys(db, a.id)).map((k) => k.owner.email)).toEqual([a.email]);
    expect(JSON.stringify(all)).not.toContain(created.key);
  });
});
