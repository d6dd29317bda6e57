// What a hostile request is and how one is sent (the corpus itself: ./corpus.ts): its caller, body and
// content type, the ids the corpus aims at, and the answer it got, timed.
import type { Role } from "../../auth/permissions";

export type Caller = Role | "anonymous";

export interface HostileRequest {
  /** What is wrong with it, e.g. `POST /api/v1/evaluations body.name + NUL`. */
  name: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  as: Caller;
  /** JSON text (sent as application/json unless contentType says otherwise), raw bytes, or a body streamed in chunks of unknown length. */
  body?: string | Uint8Array | { chunks: number; chunkBytes: number };
  contentType?: string | null;
  /** A mixed ingest batch: this good run must be stored whatever happens to the bad one. */
  goodRun?: string;
}

/** Ids the corpus aims at: an evaluation, experiment, protocol and user of its own (it writes to them), and the instance's experiment, run and trace (it only reads them). */
export interface CorpusTargets {
  evaluationId: string;
  /** The corpus's own experiment: its name, notes and exclusion rule are written to. */
  ownExperimentId: string;
  protocolId: string;
  /** A throwaway account: the corpus's user-route requests may change it. */
  userId: string;
  experimentId: string;
  runId: string;
  traceId: string;
  effectId: string;
}

export interface HostileResult {
  request: HostileRequest;
  status: number;
  ms: number;
  /** The answer's first 300 characters. */
  answer: string;
}

/** Sends one request of the corpus; `headersOf` gives a caller's credentials. A connection the server drops counts as status 0. */
export async function sendHostile(
  origin: string,
  request: HostileRequest,
  headersOf: (as: Caller) => Record<string, string>,
): Promise<HostileResult> {
  const headers: Record<string, string> = { ...headersOf(request.as) };
  if (request.body !== undefined && request.contentType !== null) headers["content-type"] = request.contentType ?? "application/json";
  let body: BodyInit | undefined;
  if (typeof request.body === "string" || request.body instanceof Uint8Array) body = request.body as BodyInit;
  else if (request.body) {
    const { chunks, chunkBytes } = request.body;
    const chunk = new Uint8Array(chunkBytes).fill(0x20);
    let sent = 0;
    body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(chunk);
        else controller.close();
      },
    });
  }
  const started = performance.now();
  try {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    const answer = Buffer.from(await response.arrayBuffer())
      .subarray(0, 300)
      .toString("utf8");
    return { request, status: response.status, ms: performance.now() - started, answer };
  } catch (error) {
    return { request, status: 0, ms: performance.now() - started, answer: String((error as Error).cause ?? error) };
  }
}

export type HeadersOf = (as: Caller) => Record<string, string>;
