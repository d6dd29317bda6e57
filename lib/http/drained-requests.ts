// An answer given before its request's body has all arrived (a 413 past a route's limit, a refusal
// that never reads the body) must still reach a client that sends its whole body before it reads
// (Python's urllib): closed at once, the connection is reset under the client's writes and the
// answer is lost with it. So the web server closes in stages (RFC 9112 §9.6): the answer is written
// at once, the rest of the body is read and dropped, and only then does the response end (and a
// connection the client asked to close is closed).
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

/** How long the rest of a body is read and dropped after the answer; a client still sending then is cut off. */
export const DRAIN_MAX_MS = 10_000;

/** Wraps the web server's request handler: a response ending while its request is still arriving ends once the request has. */
export function withDrainedRequests(handler: RequestListener, maxWaitMs = DRAIN_MAX_MS): RequestListener {
  return (request, response) => {
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      if (request.complete || request.destroyed) return end(...args);
      const callback = typeof args.at(-1) === "function" ? (args.pop() as () => void) : undefined;
      writeAnswer(response, args[0] as string | Uint8Array | undefined | null, args[1] as BufferEncoding | undefined);
      dropRest(request);
      let ended = false;
      const finish = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        end(callback);
      };
      const timer = setTimeout(finish, maxWaitMs);
      request.once("end", finish).once("close", finish);
      return response;
    }) as ServerResponse["end"];
    handler(request, response);
  };
}

/** The answer's head and body sent now, its length declared when this chunk is the whole of it. */
function writeAnswer(response: ServerResponse, chunk: string | Uint8Array | undefined | null, encoding: BufferEncoding = "utf8"): void {
  const body = chunk ?? "";
  if (!response.headersSent && !response.hasHeader("content-length") && !response.hasHeader("transfer-encoding"))
    response.setHeader("content-length", typeof body === "string" ? Buffer.byteLength(body, encoding) : body.byteLength);
  if (typeof body === "string" ? body.length > 0 : body.byteLength > 0) response.write(body, encoding);
  else response.flushHeaders();
}

/** The request's body from here on read and dropped, whoever was reading it (its reader stops there: the answer is given). */
function dropRest(request: IncomingMessage): void {
  request.removeAllListeners("data");
  request.removeAllListeners("readable");
  request.resume();
}
