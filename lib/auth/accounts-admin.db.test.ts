import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { refusal, TEST_PASSWORD as PASSWORD, useAuthTestDatabase } from "../testing/auth-test-database";
import { createAccount, createApiKey, listAccounts, listApiKeys, setAccountRole, type AccountView } from "./accounts";
import type { Auth } from "./auth";
import type { Role } from "./permissions";
import { PrincipalResolver } from "./principal";
import { resetAccountPassword } from "./reset-account-password";
import { setAccountActive } from "./set-account-active";

// An admin's controls over other accounts: deactivation and reactivation, password reset, and
// every API key with its owner.
let db: Db;
let auth: Auth;
useAuthTestDatabase((database, betterAuth) => {
  db = database;
  auth = betterAuth;
});

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
