// Which address a request comes from, decided once at the web server's edge. X-Forwarded-For is
// whatever the client wrote unless it arrived through a proxy the operator named: only then is
// the proxy's record of the client believed. Everything downstream (Better Auth's limits, the share
// link limiter) reads the one X-Forwarded-For this leaves.
import type { IncomingMessage, RequestListener } from "node:http";
import proxyAddr from "proxy-addr";

export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * TRUSTED_PROXIES as written: addresses, CIDR ranges and proxy-addr's names (loopback, linklocal,
 * uniquelocal), comma-separated. Empty trusts no proxy. A malformed entry throws, naming it.
 */
export function trustedProxies(list: readonly string[]): TrustProxy {
  if (list.length === 0) return () => false;
  try {
    return proxyAddr.compile([...list]);
  } catch (error) {
    throw new Error(`TRUSTED_PROXIES: ${(error as Error).message}`);
  }
}

/** The client's address: the socket's peer, or the nearest untrusted hop named by trusted proxies. */
export function clientAddress(request: IncomingMessage, trust: TrustProxy): string {
  return proxyAddr(request, trust);
}

/**
 * Wraps the web server's request handler: X-Forwarded-For is replaced by the one address decided
 * here (and X-Real-IP dropped), so that no handler can be fooled by a header the client set itself.
 */
export function withClientAddress(handler: RequestListener, trust: TrustProxy): RequestListener {
  return (request, response) => {
    request.headers["x-forwarded-for"] = clientAddress(request, trust);
    delete request.headers["x-real-ip"];
    handler(request, response);
  };
}
