// Thin shells over the principal and the permission table, for route handlers and pages.
import "server-only";
import { headers } from "next/headers";
import { cache } from "react";
import { redirect } from "next/navigation";
import { DomainError, forbidden } from "../errors";
import { can, type Permission } from "./permissions";
import { bearerToken, type Principal } from "./principal";
import { getPrincipalResolver } from "./server";

/** The principal of an API request holding `permission`; 401 without one, 403 when the role lacks it. */
export async function authenticateRequest(request: Request, permission: Permission): Promise<Principal> {
  const principal = await getPrincipalResolver().resolve(request.headers);
  if (!principal) {
    throw bearerToken(request.headers) !== null
      ? new DomainError("unauthenticated", "invalid_api_key", "the API key is invalid, revoked or expired")
      : new DomainError("unauthenticated", "unauthenticated", "sign in, or send an API key as Authorization: Bearer <key>");
  }
  if (!can(principal.role, permission)) throw forbidden(`the ${principal.role} role does not allow ${permission}`);
  return principal;
}

/** The signed-in user of a page, or null. Memoised per request (React's cache): the layout and the page both ask. */
export const pagePrincipal = cache(async (): Promise<Principal | null> => {
  // headers() first: it marks the page dynamic, so a build never reaches the database.
  const requestHeaders = await headers();
  return getPrincipalResolver().resolve(requestHeaders);
});

/**
 * The signed-in user of a page holding `permission`: without a session the visitor is sent to sign
 * in (and back to `path` after); a role without the permission gets a 403 page.
 */
export async function requirePagePermission(permission: Permission, path: string): Promise<Principal> {
  const principal = await pagePrincipal();
  if (!principal) redirect(`/login?next=${encodeURIComponent(path)}`);
  if (!can(principal.role, permission)) redirect(`/forbidden?need=${encodeURIComponent(permission)}`);
  return principal;
}
