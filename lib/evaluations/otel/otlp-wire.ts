// OTLP/HTTP on the wire (docs/otel.md, The receiver): a request body in either encoding (application/x-protobuf or
// application/json, gzip or not) to the OTLP/JSON shape spans.ts checks, and the answers back in the
// request's own encoding. The protobuf messages are OpenTelemetry's: the protobufjs code generated
// from opentelemetry-proto that @opentelemetry/otlp-transformer 0.214 ships (later versions carry no
// decoder). The error body, google.rpc.Status, is declared with protobufjs's reflection.
import { gunzipSync, inflateSync } from "node:zlib";
import generatedRoot from "@opentelemetry/otlp-transformer/build/src/generated/root";
import protobuf from "protobufjs";
import { DomainError, invalid } from "../../errors";
import { parseJsonText } from "../../http/input";
import {
  idMessages,
  PARENT_SPAN_ID_MESSAGE,
  plainValue,
  refuseOverLimits,
  spansOfRequest,
  storableTimeMs,
  type Attributes,
  type OtlpResourceSpans,
  type OtlpSpan,
} from "./spans";

// Generated code without types: what is used of it is typed here.
interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
  fromObject(value: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
const otlp = (
  generatedRoot as unknown as {
    opentelemetry: {
      proto: {
        collector: { trace: { v1: Record<"ExportTraceServiceRequest" | "ExportTraceServiceResponse", MessageType> } };
        common: { v1: Record<"AnyValue", MessageType> };
      };
    };
  }
).opentelemetry.proto;
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = otlp.collector.trace.v1;
const { AnyValue } = otlp.common.v1;

// The decoded messages, as protobufjs makes them: unset fields read their default (from the prototype).
interface AnyValueMessage {
  stringValue?: string;
}
interface KeyValueMessage {
  key: string;
  value?: AnyValueMessage | null;
}
/** A fixed64 as protobufjs decodes it: a Long (with long.js, which it ships), else a number. */
type Fixed64 = number | { low: number; high: number };
interface SpanMessage {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array | null;
  name: string;
  startTimeUnixNano: Fixed64;
  endTimeUnixNano: Fixed64;
  attributes: KeyValueMessage[];
  events: { timeUnixNano: Fixed64; name: string; attributes: KeyValueMessage[] }[];
  status?: { code?: number; message?: string } | null;
}
interface TraceRequestMessage {
  resourceSpans: { resource?: { attributes: KeyValueMessage[] } | null; scopeSpans: { spans: SpanMessage[] }[] }[];
}

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

/**
 * A request's spans by resource, from either encoding; 400 for a body that is not an
 * ExportTraceServiceRequest, or that holds a field spans.ts refuses (named as OTLP/JSON names it).
 */
export function resourceSpansOf(body: Buffer, encoding: OtlpEncoding, contentEncoding: string | null): OtlpResourceSpans[] {
  const bytes = inflated(body, contentEncoding);
  const request = encoding === "json" ? spansOfRequest(parseJsonText(bytes.toString("utf8"))) : spansOfMessage(decoded(bytes));
  refuseOverLimits(request);
  return request;
}

function decoded(bytes: Buffer): TraceRequestMessage {
  try {
    return ExportTraceServiceRequest.decode(bytes) as TraceRequestMessage;
  } catch (error) {
    throw refused("malformed_body", `the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
}

// The decoded message read straight into plain spans, with spans.ts's checks and words: its shape is
// the decoder's already, so no copy in OTLP/JSON's shape is made and checked again (that copy and its
// check were 90% of reading a request).
const nanosToMs = (nanos: Fixed64) =>
  typeof nanos === "number"
    ? Math.floor(nanos / 1_000_000)
    : Number(((BigInt(nanos.high >>> 0) << 32n) | BigInt(nanos.low >>> 0)) / 1_000_000n);

const HEX_OF_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
/** Bytes as lowercase hex (Buffer's "hex"), without a Buffer per id. */
function hexOf(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX_OF_BYTE[byte]!;
  return hex;
}

/** The id as hex; its field (`at` + `.` + `name`) is named only when it is refused. */
function hexIdOf(bytes: Uint8Array | null | undefined, size: number, what: string, at: string): string {
  if (bytes && bytes.length === size && bytes.some((b) => b !== 0)) return hexOf(bytes);
  const messages = idMessages(size, what);
  const problem = !bytes || bytes.length === 0 ? messages.required : bytes.length !== size ? messages.size : messages.zeros;
  const field = `${at}.${what}`;
  throw invalid(`${field}: ${problem}`, field);
}

function attributesOfMessage(list: readonly KeyValueMessage[], where: () => string): Attributes {
  const attributes: Attributes = {};
  list.forEach(({ key, value }, index) => {
    attributes[key] =
      value && Object.hasOwn(value, "stringValue")
        ? value.stringValue!
        : plainValue(value ? AnyValue.toObject(value, ANY_VALUE_AS_JSON) : undefined, () => `${where()}.attributes[${index}].value`);
  });
  return attributes;
}
const ANY_VALUE_AS_JSON = { longs: String, bytes: String, defaults: false };

function statusCodeOf(code: number, field: string): 0 | 1 | 2 {
  if (code === 0 || code === 1 || code === 2) return code;
  throw invalid(`${field}: must be 0, 1 or 2 (STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR), not ${code}`, field);
}

function spansOfMessage(message: TraceRequestMessage): OtlpResourceSpans[] {
  return message.resourceSpans.map((resourceSpans, r) => ({
    resource: attributesOfMessage(resourceSpans.resource?.attributes ?? [], () => `resourceSpans[${r}].resource`),
    spans: resourceSpans.scopeSpans.flatMap((scope, c) =>
      scope.spans.map((span, i): OtlpSpan => {
        const at = `resourceSpans[${r}].scopeSpans[${c}].spans[${i}]`;
        const parent = span.parentSpanId;
        if (parent && parent.length !== 0 && parent.length !== 8)
          throw invalid(`${at}.parentSpanId: ${PARENT_SPAN_ID_MESSAGE}`, `${at}.parentSpanId`);
        return {
          traceId: hexIdOf(span.traceId, 16, "traceId", at),
          spanId: hexIdOf(span.spanId, 8, "spanId", at),
          parentSpanId: parent && parent.length === 8 ? hexOf(parent) : null,
          name: span.name,
          startMs: storableTimeMs(nanosToMs(span.startTimeUnixNano), () => `${at}.startTimeUnixNano`),
          endMs: storableTimeMs(nanosToMs(span.endTimeUnixNano), () => `${at}.endTimeUnixNano`),
          attributes: attributesOfMessage(span.attributes, () => at),
          events: span.events.map((event, e) => ({
            name: event.name,
            atMs: storableTimeMs(nanosToMs(event.timeUnixNano), () => `${at}.events[${e}].timeUnixNano`),
            attributes: attributesOfMessage(event.attributes, () => `${at}.events[${e}]`),
          })),
          statusCode: statusCodeOf(span.status?.code ?? 0, `${at}.status.code`),
          ...(span.status?.message ? { statusMessage: span.status.message } : {}),
        };
      }),
    ),
  }));
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
