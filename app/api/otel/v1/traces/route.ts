// OTLP/HTTP traces in (docs/otel.md): `OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:3000/api/otel` and
// `OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer KEY` point any OpenTelemetry exporter here.
// Not apiRoute: OTLP answers in the request's own encoding, errors as google.rpc.Status.
import { authenticateRequest } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/web-process-db";
import { DomainError, invalid, type ErrorKind } from "@/lib/errors";
import { receiveTraces } from "@/lib/evaluations/otel/receive";
import { fieldPath } from "@/lib/evaluations/otel/spans";
import {
  encodeStatus,
  encodeTraceResponse,
  encodingOf,
  MAX_OTLP_BODY_BYTES,
  resourceSpansOf,
  type OtlpEncoding,
} from "@/lib/evaluations/otel/otlp-wire";
import { refuseCrossSiteWrite } from "@/lib/http/cross-site";
import { statusOf } from "@/lib/http/errors";
import { readBodyBytes } from "@/lib/http/input";
import { findUnstorable } from "@/lib/http/storable";
import { configuredOrigin } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** google.rpc.Code for each refusal's kind. */
const RPC_CODE: Record<ErrorKind, number> = {
  invalid: 3,
  unauthenticated: 16,
  forbidden: 7,
  not_found: 5,
  method_not_allowed: 12,
  conflict: 6,
  gone: 5,
  too_large: 8,
  unsupported_media_type: 3,
  rate_limited: 8,
  unavailable: 14,
};

const contentTypeOf = (encoding: OtlpEncoding | null) => (encoding === "protobuf" ? "application/x-protobuf" : "application/json");

export async function POST(request: Request): Promise<Response> {
  const encoding = encodingOf(request.headers.get("content-type"));
  try {
    refuseCrossSiteWrite(request.method, request.headers, configuredOrigin());
    const principal = await authenticateRequest(request, "evaluation:write");
    if (!encoding)
      throw new DomainError(
        "unsupported_media_type",
        "unsupported_media_type",
        `send OTLP as application/x-protobuf or application/json (content-type ${request.headers.get("content-type") ?? "missing"})`,
      );
    const body = await readBodyBytes(request, MAX_OTLP_BODY_BYTES);
    const resourceSpans = resourceSpansOf(body, encoding, request.headers.get("content-encoding"));
    const unstorable = findUnstorable(resourceSpans);
    if (unstorable) throw invalid(`${fieldPath(["resourceSpans", ...unstorable.path])}: ${unstorable.message}`);
    const { rejected } = await receiveTraces(getDb(), principal.userId, resourceSpans);
    const spans = new Set(rejected.map((r) => r.spanId));
    return new Response(encodeTraceResponse(encoding, { count: spans.size, message: rejected[0]?.reason ?? "" }), {
      status: 200,
      headers: { "content-type": contentTypeOf(encoding), "cache-control": "no-store" },
    });
  } catch (error) {
    const known = error instanceof DomainError;
    if (!known) console.error("POST /api/otel/v1/traces:", error);
    return new Response(encodeStatus(encoding, known ? RPC_CODE[error.kind] : 13, known ? error.message : "internal error"), {
      status: known ? statusOf(error.kind) : 500,
      headers: { "content-type": contentTypeOf(encoding), "cache-control": "no-store" },
    });
  }
}
