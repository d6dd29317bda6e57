// Route handlers served over real HTTP for tests whose client is another process (the MCP recorder):
// a node:http server on a free loopback port that hands each request to the handler its path names,
// as Next would, and writes the handler's Response back.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
export interface ServedRoute {
  /** The path, with named groups for the route's parameters, e.g. /^\/api\/v1\/evaluations\/(?<id>[^/]+)$/. */
  path: RegExp;
  methods: Partial<Record<"GET" | "POST" | "PUT", Handler>>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Serves `routes` until `close()`; unknown paths answer 404, unknown methods 405. */
export async function serveRoutes(routes: readonly ServedRoute[]): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(async (incoming, outgoing) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const route = routes.find((r) => r.path.test(url.pathname));
    const handler = route?.methods[incoming.method as "GET" | "POST" | "PUT"];
    if (!route || !handler) {
      outgoing
        .writeHead(route ? 405 : 404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "not_found", message: url.pathname } }));
      return;
    }
    const params = Object.fromEntries(
      Object.entries(route.path.exec(url.pathname)!.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
    );
    const body = incoming.method === "GET" ? undefined : new Uint8Array(await bodyOf(incoming));
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") headers.set(name, value);
    const response = await handler(new Request(url.href, { method: incoming.method, headers, body }), { params: Promise.resolve(params) });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
