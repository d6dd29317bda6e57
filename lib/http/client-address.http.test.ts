import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { trustedProxies, withClientAddress } from "./client-address";

// The web server's edge over real HTTP: what X-Forwarded-For a handler sees behind withClientAddress.
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function edge(trusted: string[]): Promise<string> {
  const server = createServer(
    withClientAddress((request, response) => {
      response.end(JSON.stringify({ forwardedFor: request.headers["x-forwarded-for"], realIp: request.headers["x-real-ip"] ?? null }));
    }, trustedProxies(trusted)),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const seen = async (url: string, headers: Record<string, string> = {}) =>
  (await (await fetch(url, { headers })).json()) as { forwardedFor: string; realIp: string | null };

describe("the client's address at the edge", () => {
  it("without TRUSTED_PROXIES, is the socket's peer whatever X-Forwarded-For or X-Real-IP the client sent", async () => {
    const url = await edge([]);
    expect(await seen(url)).toEqual({ forwardedFor: "127.0.0.1", realIp: null });
    expect(await seen(url, { "x-forwarded-for": "10.9.9.9", "x-real-ip": "10.8.8.8" })).toEqual({
      forwardedFor: "127.0.0.1",
      realIp: null,
    });
  });

  it("behind a named proxy, is the nearest hop that proxy did not vouch for", async () => {
    const url = await edge(["loopback"]);
    expect((await seen(url, { "x-forwarded-for": "10.9.9.9" })).forwardedFor).toBe("10.9.9.9");
    // The client wrote its own entry first; the proxy appended the address it saw: that one counts.
    expect((await seen(url, { "x-forwarded-for": "6.6.6.6, 10.9.9.9" })).forwardedFor).toBe("10.9.9.9");
    expect((await seen(url)).forwardedFor).toBe("127.0.0.1");
  });

  it("trusts only the proxies named: another address's X-Forwarded-For is ignored", async () => {
    const url = await edge(["10.0.0.1", "192.168.0.0/16"]);
    expect((await seen(url, { "x-forwarded-for": "10.9.9.9" })).forwardedFor).toBe("127.0.0.1");
  });

  it("refuses a malformed TRUSTED_PROXIES entry, naming the variable", () => {
    expect(() => trustedProxies(["not-an-address"])).toThrow(/TRUSTED_PROXIES/);
  });
});
