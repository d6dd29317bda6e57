import type { Db } from "../db/prisma";
import { conflict, notFound } from "../errors";
import { accountView, ACTIVE_ADMIN, ADMINS_LOCK, type AccountView } from "./accounts";
import type { Principal } from "./principal";

export interface SetAccountActiveOptions {
  userId: string;
  /** false deactivates, true reactivates. */
  active: boolean;
  /** Who asks (an admin): nobody deactivates themself. */
  actor: Pick<Principal, "userId" | "email">;
  /** Kept with a deactivation (Better Auth's `ban_reason`); when left out, one naming the admin. */
  reason?: string;
}

/**
 * Deactivates or reactivates an account with Better Auth's own `banned` flag. Deactivating ends
 * every session of the user in the same transaction; lib/auth/principal.ts refuses a banned user's
 * API keys and sessions, and Better Auth's admin plugin refuses their sign-in. The caller forgets
 * the user's cached principals (PrincipalResolver.forgetUser) so that this process refuses them at
 * once; other processes do within PRINCIPAL_CACHE_TTL_MS. Nobody deactivates themself, and the last
 * active admin stays active: both 409. Serialised with role changes and first-run setup by one
 * advisory lock, so two admins deactivating each other at once cannot leave none. Idempotent.
 */
export async function setAccountActive(db: Db, { userId, active, actor, reason }: SetAccountActiveOptions): Promise<AccountView> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMINS_LOCK})`;
    const user = await tx.user.findUnique({ where: { id: userId } });
    if (!user) throw notFound(`user ${userId}`);
    if (active)
      return accountView(await tx.user.update({ where: { id: userId }, data: { banned: false, banReason: null, banExpires: null } }));

    if (userId === actor.userId) throw conflict("cannot_deactivate_self", "you cannot deactivate your own account; another admin can");
    if (user.role === "admin" && user.banned !== true && (await tx.user.count({ where: ACTIVE_ADMIN })) === 1) {
      throw conflict("last_admin", "the last active admin cannot be deactivated; make another admin first");
    }
    const banReason = reason ?? `deactivated by ${actor.email}`;
    const updated = await tx.user.update({ where: { id: userId }, data: { banned: true, banReason, banExpires: null } });
    await tx.session.deleteMany({ where: { userId } });
    return accountView(updated);
  });
}
