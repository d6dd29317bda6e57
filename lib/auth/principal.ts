import type { Db } from "../db/prisma";
import type { Auth } from "./auth";
import { isRole, type Role } from "./permissions";

/** Who is asking: a signed-in user, or a script holding one of a user's API keys (with that user's role). */
export interface Principal {
  userId: string;
  email: string;
  name: string;
  role: Role;
  via: "session" | "api_key";
}

/** The key of an `Authorization: Bearer …` header, or null when there is none. */
export function bearerToken(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

/**
 * Resolves the principal of a request. A Bearer header is an API key and nothing else: an invalid,
 * revoked or expired one is refused outright (null), never taken as "no key" so that a session
 * cookie sent alongside cannot mask it. A banned user, or one without a known role, has no principal.
 */
export async function resolvePrincipal(auth: Auth, db: Db, headers: Headers): Promise<Principal | null> {
  const key = bearerToken(headers);
  if (key !== null) {
    const verified = await auth.api.verifyApiKey({ body: { key } }).catch(() => null);
    if (!verified?.valid || !verified.key) return null;
    const user = await db.user.findUnique({ where: { id: verified.key.referenceId } });
    if (!user || user.banned || !isRole(user.role)) return null;
    return { userId: user.id, email: user.email, name: user.name, role: user.role, via: "api_key" };
  }
  const session = await auth.api.getSession({ headers }).catch(() => null);
  if (!session) return null;
  const { user } = session;
  const role = (user as { role?: unknown }).role;
  if (!isRole(role) || (user as { banned?: boolean | null }).banned) return null;
  return { userId: user.id, email: user.email, name: user.name, role, via: "session" };
}
