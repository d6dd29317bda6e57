// OTLP/HTTP on the wire (issue 24 §1): a request body in either encoding (application/x-protobuf or
// application/json, gzip or not) to the OTLP/JSON shape spans.ts checks, and the answers back in the
// request's own encoding. The protobuf messages are OpenTelemetry's: the protobufjs code generated
// from opentelemetry-proto that @opentelemetry/otlp-transformer 0.214 ships (later versions carry no
// decoder). The error body, google.rpc.Status, is declared with protobufjs's reflection.
import { gunzipSync, inflateSync } from "node:zlib";
import generatedRoot from "@opentelemetry/otlp-transformer/build/src/generated/root";
import protobuf from "protobufjs";
import { DomainError } from "../../errors";
import { parseJsonText } from "../../http/input";

// Generated code without types: what is used of it is typed here.
interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
  fromObject(value: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = (
  generatedRoot as unknown as {
    opentelemetry: {
      proto: { collector: { trace: { v1: Record<"ExportTraceServiceRequest" | "ExportTraceServiceResponse", MessageType> } } };
    };
  }
).opentelemetry.proto.collector.trace.v1;

const rpcStatus = new protobuf.Type("Status").add(new protobuf.Field("code", 1, "int32")).add(new protobuf.Field("message", 2, "string"));
new protobuf.Root().define("google.rpc").add(rpcStatus);

/** OTLP/HTTP's limits: a larger body is refused before it is decoded (and a compressed one may not grow past the second). */
export const MAX_OTLP_BODY_BYTES = 8 * 1024 * 1024;
export const MAX_OTLP_DECODED_BYTES = 32 * 1024 * 1024;

export type OtlpEncoding = "protobuf" | "json";

/** The encoding a content type names; null for any other (a 415). */
export function encodingOf(contentType: string | null): OtlpEncoding | null {
  const essence = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return essence === "application/x-protobuf" ? "protobuf" : essence === "application/json" ? "json" : null;
}

const base64ToHex = (value: unknown) => (typeof value === "string" ? Buffer.from(value, "base64").toString("hex") : value);

/** The protobuf ids (bytes, base64 after toObject) as OTLP/JSON writes them: hex. */
function hexIds(request: Record<string, unknown>): Record<string, unknown> {
  for (const resourceSpans of (request.resourceSpans as Record<string, unknown>[] | undefined) ?? [])
    for (const scopeSpans of (resourceSpans.scopeSpans as Record<string, unknown>[] | undefined) ?? [])
      for (const span of (scopeSpans.spans as Record<string, unknown>[] | undefined) ?? []) {
        for (const key of ["traceId", "spanId", "parentSpanId"]) if (key in span) span[key] = base64ToHex(span[key]);
        for (const link of (span.links as Record<string, unknown>[] | undefined) ?? [])
          for (const key of ["traceId", "spanId"]) if (key in link) link[key] = base64ToHex(link[key]);
      }
  return request;
}

const refused = (code: string, message: string) => new DomainError("invalid", code, message);

/** The body's bytes as sent, content-encoding undone within the decoded limit. */
function inflated(body: Buffer, contentEncoding: string | null): Buffer {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return body;
  try {
    if (encoding === "gzip" || encoding === "x-gzip") return gunzipSync(body, { maxOutputLength: MAX_OTLP_DECODED_BYTES });
    if (encoding === "deflate") return inflateSync(body, { maxOutputLength: MAX_OTLP_DECODED_BYTES });
  } catch (error) {
    const tooBig = (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    throw tooBig
      ? new DomainError("too_large", "body_too_large", `the body decompresses to more than ${MAX_OTLP_DECODED_BYTES} bytes (the limit)`)
      : refused("malformed_body", `the body is not valid ${encoding}: ${(error as Error).message}`);
  }
  throw new DomainError(
    "unsupported_media_type",
    "unsupported_encoding",
    `content-encoding ${encoding} is not supported (send gzip, or none)`,
  );
}

/** An ExportTraceServiceRequest in OTLP/JSON's shape, from either encoding; 400 for a body that is not one. */
export function decodeTraceRequest(body: Buffer, encoding: OtlpEncoding, contentEncoding: string | null): unknown {
  const bytes = inflated(body, contentEncoding);
  if (encoding === "json") return parseJsonText(bytes.toString("utf8"));
  try {
    const message = ExportTraceServiceRequest.decode(bytes);
    return hexIds(ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false }));
  } catch (error) {
    throw refused("malformed_body", `the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
}

/** ExportTraceServiceResponse: partialSuccess only when some spans were rejected. */
export function encodeTraceResponse(
  encoding: OtlpEncoding,
  rejected: { count: number; message: string },
): Uint8Array<ArrayBuffer> | string {
  const partialSuccess =
    rejected.count > 0 ? { partialSuccess: { rejectedSpans: String(rejected.count), errorMessage: rejected.message } } : {};
  if (encoding === "json") return JSON.stringify(partialSuccess);
  return new Uint8Array(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(partialSuccess)).finish());
}

/** OTLP's error body, google.rpc.Status, in the request's encoding (JSON when the encoding is unknown). */
export function encodeStatus(encoding: OtlpEncoding | null, code: number, message: string): Uint8Array<ArrayBuffer> | string {
  if (encoding === "protobuf") return new Uint8Array(rpcStatus.encode(rpcStatus.create({ code, message })).finish());
  return JSON.stringify({ code, message });
}

/** Test and bench support: an OTLP/JSON-shaped request encoded as protobuf, the way exporters send it. */
export function encodeTraceRequest(request: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const withBase64Ids = structuredClone(request);
  for (const resourceSpans of (withBase64Ids.resourceSpans as Record<string, unknown>[] | undefined) ?? [])
    for (const scopeSpans of (resourceSpans.scopeSpans as Record<string, unknown>[] | undefined) ?? [])
      for (const span of (scopeSpans.spans as Record<string, unknown>[] | undefined) ?? [])
        for (const key of ["traceId", "spanId", "parentSpanId"])
          if (typeof span[key] === "string") span[key] = Buffer.from(span[key] as string, "hex").toString("base64");
  return new Uint8Array(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(withBase64Ids)).finish());
}
