// Users and API keys, over Better Auth. Callers check permissions first (lib/auth/guard.ts).
import { isAPIError } from "better-auth/api";
import type { Db } from "../db/prisma";
import { conflict, forbidden, notFound } from "../errors";
import type { Prisma, User } from "../generated/prisma/client";
import type { Auth } from "./auth";
import { can, type Role } from "./permissions";
import type { Principal } from "./principal";
import type { NewApiKey, NewUser } from "./account-schemas";

export interface AccountView {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: string;
  /** false once an admin deactivated the account (Better Auth's `banned`): no session, no API key works. */
  active: boolean;
  /** Why it was deactivated (null while active). */
  deactivatedReason: string | null;
}

type UserRow = Pick<User, "id" | "email" | "name" | "role" | "createdAt" | "banned" | "banReason">;

/** A users row as the admin pages and GET /api/v1/users show it (the role column holds one of ROLES). */
export function accountView(user: UserRow): AccountView {
  const active = user.banned !== true;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role as Role,
    createdAt: user.createdAt.toISOString(),
    active,
    deactivatedReason: active ? null : user.banReason,
  };
}

/** Admins whose accounts are active: the instance must keep at least one. */
export const ACTIVE_ADMIN = { role: "admin", OR: [{ banned: false }, { banned: null }] } satisfies Prisma.UserWhereInput;

/** Creates an account with a hashed password (Better Auth's scrypt). A taken email is a 409 naming the field. */
export async function createAccount(auth: Auth, input: NewUser): Promise<AccountView> {
  try {
    const { user } = await auth.api.createUser({
      body: { email: input.email, password: input.password, name: input.name ?? input.email, role: input.role },
    });
    return accountView({ ...user, role: input.role, createdAt: new Date(user.createdAt), banned: false, banReason: null });
  } catch (error) {
    if (isTakenEmail(error)) throw conflict("email_taken", `email: an account with ${input.email} already exists`, "email");
    throw error;
  }
}

const TAKEN_EMAIL_CODES = new Set(["USER_ALREADY_EXISTS", "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"]);

/**
 * Better Auth's refusal of a taken email, told by its code: in the web app its APIError may be
 * another bundled copy's class than the one imported here (instanceof failed, a 500). Or the users'
 * unique email, when two creations of one address both passed Better Auth's check.
 */
function isTakenEmail(error: unknown): boolean {
  const { body, code } = (error ?? {}) as { body?: { code?: unknown }; code?: unknown };
  return (isAPIError(error) && TAKEN_EMAIL_CODES.has(String(body?.code))) || code === "P2002";
}

/** "blad": one first-run setup, and one change to who is an active admin, at a time. */
export const ADMINS_LOCK = 0x626c_6164;

/**
 * The first-run setup: creates an admin only while no account exists. Two setups at once are
 * serialised by an advisory lock held for the duration, so exactly one of them succeeds.
 */
export async function createFirstAdmin(auth: Auth, db: Db, input: Omit<NewUser, "role">): Promise<AccountView> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMINS_LOCK})`;
      if ((await tx.user.count()) > 0) throw conflict("setup_done", "setup is done: an account exists already; sign in instead");
      return createAccount(auth, { ...input, role: "admin" });
    },
    { timeout: 30_000 },
  );
}

export async function listAccounts(db: Db): Promise<AccountView[]> {
  const users = await db.user.findMany({ orderBy: { createdAt: "asc" } });
  return users.map(accountView);
}

/** Sets a user's role; the last active admin cannot be demoted (the instance would have no one to manage it). */
export async function setAccountRole(db: Db, userId: string, role: Role): Promise<AccountView> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMINS_LOCK})`;
    const user = await tx.user.findUnique({ where: { id: userId } });
    if (!user) throw notFound(`user ${userId}`);
    if (user.role === "admin" && user.banned !== true && role !== "admin" && (await tx.user.count({ where: ACTIVE_ADMIN })) === 1) {
      throw conflict("last_admin", "role: the last active admin cannot be demoted; make another admin first", "role");
    }
    const updated = await tx.user.update({ where: { id: userId }, data: { role } });
    if (role !== user.role) await tx.session.deleteMany({ where: { userId } }); // the new role applies from the next sign-in
    return accountView(updated);
  });
}

export interface ApiKeyView {
  id: string;
  name: string | null;
  /** The first characters of the key, to tell keys apart; the key itself is never shown again. */
  start: string | null;
  userId: string;
  /** Whose key it is: the key acts as this user, and stops working while they are deactivated. */
  owner: ApiKeyOwner;
  createdAt: string;
  /** The last request made with it, written in batches (API_KEY_USAGE_FLUSH_MS), so up to 5 s behind. */
  lastUsedAt: string | null;
}

export interface ApiKeyOwner {
  id: string;
  email: string;
  name: string;
  active: boolean;
}

const ownerOf = (user: { id: string; email: string; name: string; banned?: boolean | null }): ApiKeyOwner => ({
  id: user.id,
  email: user.email,
  name: user.name,
  active: user.banned !== true,
});

/** Creates an API key for an existing user; the key is returned once and stored hashed. */
export async function createApiKey(auth: Auth, userId: string, name: string): Promise<{ key: string; apiKey: ApiKeyView }> {
  const created = await auth.api.createApiKey({ body: { userId, name } });
  const owner = await (await auth.$context).internalAdapter.findUserById(userId);
  if (!owner) throw new Error(`API key ${created.id} was made for user ${userId}, who does not exist`);
  return {
    key: created.key,
    apiKey: {
      id: created.id,
      name: created.name,
      start: created.start,
      userId,
      owner: ownerOf(owner),
      createdAt: new Date(created.createdAt).toISOString(),
      lastUsedAt: null,
    },
  };
}

/** A key for the caller, or (an admin only) for another user, who must exist. */
export async function createApiKeyFor(
  auth: Auth,
  db: Db,
  principal: Principal,
  input: NewApiKey,
): Promise<{ key: string; apiKey: ApiKeyView }> {
  const userId = input.userId ?? principal.userId;
  if (userId !== principal.userId) {
    if (!can(principal.role, "users:admin")) throw forbidden("userId: only an admin may create a key for another user", "userId");
    if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound(`userId: user ${userId}`, "userId");
  }
  return createApiKey(auth, userId, input.name);
}

/** Keys newest first, each with its owner: one user's, or every user's when userId is left out. */
export async function listApiKeys(db: Db, userId?: string): Promise<ApiKeyView[]> {
  const keys = await db.apikey.findMany({ where: userId ? { referenceId: userId } : {}, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  // api_keys.reference_id has no foreign key (the plugin's schema): the owners come in a second query.
  const owners = await db.user.findMany({
    where: { id: { in: [...new Set(keys.map((k) => k.referenceId))] } },
    select: { id: true, email: true, name: true, banned: true },
  });
  const ownerById = new Map(owners.map((u) => [u.id, ownerOf(u)]));
  return keys.flatMap((k) => {
    const owner = ownerById.get(k.referenceId);
    // A key whose user is gone authenticates no one (lib/auth/principal.ts): nothing to list.
    return owner
      ? [
          {
            id: k.id,
            name: k.name,
            start: k.start,
            userId: k.referenceId,
            owner,
            createdAt: k.createdAt.toISOString(),
            lastUsedAt: k.lastRequest?.toISOString() ?? null,
          },
        ]
      : [];
  });
}

/** Revokes (deletes) a key at once: its next use is refused. Only its owner, or an admin, may. */
export async function revokeApiKey(db: Db, keyId: string, by: { userId: string; isAdmin: boolean }): Promise<void> {
  const key = await db.apikey.findUnique({ where: { id: keyId } });
  if (!key || (!by.isAdmin && key.referenceId !== by.userId)) throw notFound(`API key ${keyId}`);
  await db.apikey.delete({ where: { id: keyId } });
}
