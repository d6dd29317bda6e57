import type { Db } from "../db/prisma";
import { notFound } from "../errors";
import type { Auth } from "./auth";

/**
 * An admin sets a new password for a user (who forgot theirs): hashed and stored by Better Auth
 * itself (its scrypt hasher and internal adapter, as the admin plugin's setUserPassword does, which
 * needs an admin session and so cannot serve an admin's API key). Every session of the user ends;
 * the caller forgets their cached principals (PrincipalResolver.forgetUser). Their API keys stay.
 * The password is parsed first (resetPasswordSchema: Better Auth's own bounds).
 */
export async function resetAccountPassword(auth: Auth, db: Db, userId: string, password: string): Promise<void> {
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound(`user ${userId}`);
  const context = await auth.$context;
  const hash = await context.password.hash(password);
  if (await context.internalAdapter.findCredentialAccount(userId)) await context.internalAdapter.updatePassword(userId, hash);
  else await context.internalAdapter.createAccount({ userId, providerId: "credential", accountId: userId, password: hash });
  await context.internalAdapter.deleteUserSessions(userId);
}
