// Route handlers served over real HTTP for tests whose client is another process (the MCP recorder):
// a node:http server on a free loopback port that hands each request to the handler its path names,
// as Next would (the body streamed from the request as it arrives), behind the web server's edge for
// bodies (lib/http/drained-requests.ts), and writes the handler's Response back.
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { withDrainedRequests } from "../http/drained-requests";
import { withJsonMethodRefusals } from "../http/method-refusals";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
export interface ServedRoute {
  /** The path, with named groups for the route's parameters, e.g. /^\/api\/v1\/evaluations\/(?<id>[^/]+)$/. */
  path: RegExp;
  methods: Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>;
}

export interface ServeOptions {
  /**
   * As the web server (workers/web.ts) answers: a method a matched route lacks gets Next's empty 405, which the
   * web server's edge (lib/http/method-refusals.ts) gives the API's JSON body. Without it, this server's own 404/405.
   */
  asTheWebServer?: boolean;
}

/** Serves `routes` until `close()` (the first whose path matches takes a request); unknown paths answer 404, unknown methods 405. */
export async function serveRoutes(
  routes: readonly ServedRoute[],
  options: ServeOptions = {},
): Promise<{ origin: string; close(): Promise<void> }> {
  const routeRequest: RequestListener = async (incoming, outgoing) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const route = routes.find((r) => r.path.test(url.pathname));
    const handler = route?.methods[incoming.method as keyof ServedRoute["methods"]];
    if (route && !handler && options.asTheWebServer) {
      outgoing.statusCode = 405;
      outgoing.end();
      return;
    }
    if (!route || !handler) {
      outgoing
        .writeHead(route ? 405 : 404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "not_found", message: url.pathname } }));
      return;
    }
    const params = Object.fromEntries(
      Object.entries(route.path.exec(url.pathname)!.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
    );
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") headers.set(name, value);
    // As Next's NextRequest: the node request itself is the body (a stream).
    const body = incoming.method === "GET" || incoming.method === "HEAD" ? undefined : (incoming as unknown as ReadableStream);
    const request = new Request(url.href, { method: incoming.method, headers, body, duplex: "half" } as RequestInit);
    const response = await handler(request, { params: Promise.resolve(params) });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  };
  const server = createServer(withDrainedRequests(options.asTheWebServer ? withJsonMethodRefusals(routeRequest) : routeRequest));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
