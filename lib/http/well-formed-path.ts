// A path whose %-escapes do not decode as UTF-8 (`%ED%A0%80`, an encoded lone surrogate; a stray
// `%FF`) names nothing: Next answered such paths 500 before any route or page saw them. The web
// server refuses them at its edge with a 400.
import type { RequestListener } from "node:http";

/** Whether the path part of a request target decodes (its query is decoded leniently by URLSearchParams, as browsers do). */
export function isWellFormedPath(target: string): boolean {
  const end = target.search(/[?#]/);
  try {
    decodeURIComponent(end === -1 ? target : target.slice(0, end));
    return true;
  } catch {
    return false;
  }
}

export const MALFORMED_PATH_BODY = JSON.stringify({
  error: { code: "malformed_path", message: "the path holds a %-escape that is not UTF-8" },
});

/** Wraps the web server's request handler: a malformed path is answered 400 here. */
export function withWellFormedPaths(handler: RequestListener): RequestListener {
  return (request, response) => {
    if (isWellFormedPath(request.url ?? "/")) return handler(request, response);
    response.writeHead(400, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(MALFORMED_PATH_BODY);
  };
}
