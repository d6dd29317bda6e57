// Runs before every request: security headers with a per-request CSP nonce on pages, and a refusal
// of cross-site writes to the API (docs/accounts.md).
import { NextResponse, type NextRequest } from "next/server";
import { baseUrlOf, readServerEnv } from "./lib/env";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
    // Server-rendered style attributes (charts, progress bars) need inline styles; scripts do not.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * A browser always sends Origin (and Sec-Fetch-Site) with a cross-site write, so a write that names
 * another site is refused whatever credentials it carries. Scripts send neither and authenticate
 * with an API key, which a browser never attaches on its own. Better Auth checks its own routes.
 */
function crossSiteWrite(request: NextRequest): boolean {
  if (!WRITE_METHODS.has(request.method)) return false;
  if (request.headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  // The origin the browser used is the Host it sent (nextUrl says "localhost" for any loopback
  // address), or the configured public origin when a reverse proxy rewrites Host.
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  const env = readServerEnv();
  return host !== request.headers.get("host") && (env.BOUNDARY_LAB_URL === undefined || origin !== baseUrlOf(env));
}

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/")) {
    if (!pathname.startsWith("/api/auth/") && crossSiteWrite(request)) {
      return NextResponse.json({ error: { code: "cross_site", message: "cross-site requests may not change anything" } }, { status: 403 });
    }
    return NextResponse.next();
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = contentSecurityPolicy(nonce);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico).*)" }],
};
