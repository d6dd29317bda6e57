import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { withJsonMethodRefusals } from "./method-refusals";

// The web server's edge over real HTTP. The handler answers as Next does a method a route does not
// export (status 405, no body, no type: auto-implement-methods.js), or as a route answers for itself.
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function edge(handler: RequestListener): Promise<string> {
  const server = createServer(withJsonMethodRefusals(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const nextEmpty405: RequestListener = (_, response) => {
  response.statusCode = 405;
  response.end();
};

describe("an empty 405 at the edge", () => {
  it("is the API's JSON refusal under /api/, naming the method and the path", async () => {
    const origin = await edge(nextEmpty405);
    const answer = await fetch(`${origin}/api/v1/shared/TOKEN?x=1`, { method: "DELETE" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(await answer.json()).toEqual({
      error: { code: "method_not_allowed", message: "DELETE is not allowed on /api/v1/shared/TOKEN" },
    });
  });

  it("is left alone outside /api/, and a route's own 405 or any other answer is passed through", async () => {
    expect(await (await fetch(`${await edge(nextEmpty405)}/experiments`, { method: "DELETE" })).text()).toBe("");
    const own = await edge((_, response) => {
      response.writeHead(405, { "content-type": "application/json" }).end('{"error":{"code":"own"}}');
    });
    expect(await (await fetch(`${own}/api/v1/x`, { method: "PUT" })).json()).toEqual({ error: { code: "own" } });
    const fine = await edge((_, response) => response.end("ok"));
    expect(await (await fetch(`${fine}/api/v1/x`)).text()).toBe("ok");
  });
});
