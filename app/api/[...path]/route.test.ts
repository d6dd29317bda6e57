import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRoutes } from "@/lib/testing/route-server";
import { DELETE, GET, PATCH, POST, PUT } from "./route";

// The catch-all under /api/ over real HTTP: a path no route serves answers the API's JSON 404 (Next's
// routing prefers every more specific route to it), whatever the method.
let api: { origin: string; close(): Promise<void> };
beforeAll(async () => {
  api = await serveRoutes([{ path: /^\/api\/.+$/, methods: { GET, POST, PUT, PATCH, DELETE } }]);
});
afterAll(async () => {
  await api?.close();
});

describe("an /api/ path no route serves", () => {
  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("answers %s with the API's 404", async (method) => {
    const answer = await fetch(`${api.origin}/api/v1/no/such/thing?x=1`, {
      method,
      ...(method === "GET" ? {} : { headers: { "content-type": "application/json" }, body: "{}" }),
    });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(await answer.json()).toEqual({ error: { code: "not_found", message: "API route /api/v1/no/such/thing not found" } });
  });
});
