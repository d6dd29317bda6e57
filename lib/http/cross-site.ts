// The cross-site write rule (docs/accounts.md), pure: apiRoute applies it to every API route before
// authentication. It lives here, not in proxy.ts, so that no proxy runs on /api/: Next copies the
// body of every request a proxy sees, holding it in memory and cutting it at 10 MB.
import { DomainError } from "../errors";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Whether a request is a write sent from another site. A browser always sends Origin (and
 * Sec-Fetch-Site) with a cross-site write, so a write that names another site is one whatever
 * credentials it carries. Scripts send neither and authenticate with an API key, which a browser
 * never attaches on its own. `configuredOrigin` is BOUNDARY_LAB_URL's origin, when it is set.
 */
export function isCrossSiteWrite(method: string, headers: Headers, configuredOrigin: string | undefined): boolean {
  if (!WRITE_METHODS.has(method.toUpperCase())) return false;
  if (headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = headers.get("origin");
  if (origin === null) return false;
  // The origin the browser used is the Host it sent, or the configured public origin when a reverse
  // proxy rewrites Host.
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  return host !== headers.get("host") && origin !== configuredOrigin;
}

/** Throws the 403 `cross_site` answer for a cross-site write. */
export function refuseCrossSiteWrite(method: string, headers: Headers, configuredOrigin: string | undefined): void {
  if (isCrossSiteWrite(method, headers, configuredOrigin))
    throw new DomainError("forbidden", "cross_site", "cross-site requests may not change anything");
}
