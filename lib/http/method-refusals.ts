// Next answers a method that a route handler does not export with an empty 405 (no body, no type).
// Under /api/ every refusal has the API's JSON shape, so the web server's edge gives that one its body.
import type { RequestListener, ServerResponse } from "node:http";
import { DomainError } from "../errors";
import { errorBody } from "./errors";

/** The API's 405 body for `method` on `path`. */
export function methodNotAllowedBody(method: string, path: string): string {
  return JSON.stringify(errorBody(new DomainError("method_not_allowed", "method_not_allowed", `${method} is not allowed on ${path}`)));
}

/** Wraps the web server's request handler: an empty 405 under /api/ is answered with the API's JSON refusal. */
export function withJsonMethodRefusals(handler: RequestListener): RequestListener {
  return (request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    if (!path.startsWith("/api/")) return handler(request, response);
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      const bodyless = args.length === 0 || typeof args[0] === "function";
      if (bodyless && !response.headersSent && response.statusCode === 405 && !response.hasHeader("content-type")) {
        response.setHeader("content-type", "application/json");
        response.setHeader("cache-control", "no-store");
        return end(methodNotAllowedBody(request.method ?? "", path), ...args);
      }
      return end(...args);
    }) as ServerResponse["end"];
    handler(request, response);
  };
}
