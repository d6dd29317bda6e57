// OTLP trace requests (docs/otel.md, The receiver) as the receiver reads them: the OTLP/JSON shape of
// ExportTraceServiceRequest (opentelemetry-proto 1.x, the protobuf decoded into the same shape by
// otlp-decode.ts) checked with one zod schema, then made plain: hex ids, times in epoch
// milliseconds, attributes as a flat record of values. Unknown fields are ignored, as OTLP asks.
import { z } from "zod";
import { DomainError, invalid } from "../../errors";
import { issueMessage } from "../../http/input";
import { isStorableInstant, STORABLE_TIME_RANGE } from "../../http/storable";

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events: { name: string; atMs: number; attributes: Attributes }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: 0 | 1 | 2;
  statusMessage?: string;
}

export interface OtlpResourceSpans {
  resource: Attributes;
  spans: OtlpSpan[];
}

// An attribute's value (AnyValue) is read by valueOf below, not by zod: a request holds thousands of
// them, and a recursive zod schema took a third of the receiver's time. Its shape is checked all the same.
const attributesSchema = z.array(z.object({ key: z.string(), value: z.unknown().optional() })).optional();
type KeyValues = z.infer<typeof attributesSchema>;
/** What is wrong with an id, in the words of both readers (this schema's, and otlp-wire.ts's of protobuf bytes). */
export const idMessages = (bytes: number, what: string) => ({
  required: `${what} is required`,
  size: `${what} must be ${bytes} bytes (${bytes * 2} hex digits)`,
  zeros: `${what} must not be all zeros`,
});
export const PARENT_SPAN_ID_MESSAGE = "parentSpanId must be empty or 8 bytes (16 hex digits)";
const hexId = (bytes: number, what: string) =>
  z
    .string(idMessages(bytes, what).required)
    .regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), idMessages(bytes, what).size)
    .refine((id) => !/^0+$/.test(id), idMessages(bytes, what).zeros)
    .transform((id) => id.toLowerCase());
// int64 nanoseconds: a string, or a JSON number (past 2^53 it has lost its last digits, not its milliseconds).
const unixNano = z.union([
  z.string().regex(/^\d+$/, "must be nanoseconds since the epoch"),
  z.number().min(0, "must be nanoseconds since the epoch"),
]);
// OTLP/JSON sends enums as numbers; some senders write their names.
const statusCode = z
  .union([z.literal(0), z.literal(1), z.literal(2), z.enum(["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"])])
  .transform((code) =>
    typeof code === "number" ? code : (["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"].indexOf(code) as 0 | 1 | 2),
  );

const spanSchema = z.object({
  traceId: hexId(16, "traceId"),
  spanId: hexId(8, "spanId"),
  parentSpanId: z
    .string()
    .regex(/^([0-9a-fA-F]{16})?$/, PARENT_SPAN_ID_MESSAGE)
    .optional(),
  name: z.string().default(""),
  startTimeUnixNano: unixNano,
  endTimeUnixNano: unixNano,
  attributes: attributesSchema,
  events: z.array(z.object({ timeUnixNano: unixNano, name: z.string().default(""), attributes: attributesSchema })).optional(),
  status: z.object({ code: statusCode.optional(), message: z.string().optional() }).optional(),
});

export const exportTraceServiceRequestSchema = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: attributesSchema }).optional(),
        scopeSpans: z.array(z.object({ spans: z.array(spanSchema).optional() })).optional(),
      }),
    )
    .optional(),
});

const nanosToMs = (nanos: string | number) =>
  typeof nanos === "number" ? Math.floor(nanos / 1_000_000) : Number(BigInt(nanos) / 1_000_000n);

/** A span's or event's time in epoch milliseconds, checked here: past year 9999 it has no ISO form PostgreSQL reads (400 naming the field). */
export function storableTimeMs(ms: number, field: () => string): number {
  if (isStorableInstant(ms)) return ms;
  const name = field();
  throw invalid(`${name}: must be a time ${STORABLE_TIME_RANGE}, in nanoseconds since the epoch`, name);
}

const MALFORMED = Symbol("malformed AnyValue");
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const INTEGER = /^-?\d+$/;

/** OTLP's AnyValue as a plain value; MALFORMED when it is not one (a value of the wrong type, or no known field). */
function valueOf(value: unknown): AttributeValue | typeof MALFORMED {
  if (value === undefined) return null;
  if (!isRecord(value)) return MALFORMED;
  if ("stringValue" in value) return typeof value.stringValue === "string" ? value.stringValue : MALFORMED;
  if ("boolValue" in value) return typeof value.boolValue === "boolean" ? value.boolValue : MALFORMED;
  if ("intValue" in value) {
    const int = value.intValue;
    return (typeof int === "number" && Number.isInteger(int)) || (typeof int === "string" && INTEGER.test(int)) ? Number(int) : MALFORMED;
  }
  if ("doubleValue" in value) {
    const double = typeof value.doubleValue === "string" ? Number(value.doubleValue) : value.doubleValue;
    return typeof double === "number" && !Number.isNaN(double) ? double : MALFORMED;
  }
  if ("bytesValue" in value) return typeof value.bytesValue === "string" ? value.bytesValue : MALFORMED;
  if ("arrayValue" in value) {
    const values = isRecord(value.arrayValue) ? (value.arrayValue.values ?? []) : MALFORMED;
    if (!Array.isArray(values)) return MALFORMED;
    const items = values.map(valueOf);
    return items.includes(MALFORMED) ? MALFORMED : (items as AttributeValue[]);
  }
  if ("kvlistValue" in value) {
    const values = isRecord(value.kvlistValue) ? (value.kvlistValue.values ?? []) : MALFORMED;
    if (!Array.isArray(values)) return MALFORMED;
    const entries: Record<string, AttributeValue> = {};
    for (const entry of values) {
      if (!isRecord(entry) || typeof entry.key !== "string") return MALFORMED;
      const item = valueOf(entry.value);
      if (item === MALFORMED) return MALFORMED;
      entries[entry.key] = item;
    }
    return entries;
  }
  return Object.keys(value).length === 0 ? null : MALFORMED;
}

/** An AnyValue in OTLP/JSON's shape as a plain value; 400 naming `field` when it is not one. */
export function plainValue(value: unknown, field: () => string): AttributeValue {
  const plain = valueOf(value);
  if (plain === MALFORMED) throw invalid(`${field()}: must be an OTLP AnyValue (stringValue, intValue, …)`);
  return plain;
}

/** The attributes as a record; 400 naming the first value that is not an AnyValue. */
function attributesOf(list: KeyValues, where: () => string): Attributes {
  const attributes: Attributes = {};
  for (const [index, { key, value }] of (list ?? []).entries())
    attributes[key] = plainValue(value, () => `${where()}.attributes[${index}].value`);
  return attributes;
}

/** A place in the request as OTLP's field names write it: `resourceSpans[0].scopeSpans[0].spans[3].traceId`. */
export const fieldPath = (path: readonly PropertyKey[]) =>
  path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");

/** The request's spans by resource; 400 naming the field for anything the schema refuses (nothing is then stored). */
export function spansOfRequest(body: unknown): OtlpResourceSpans[] {
  const parsed = exportTraceServiceRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldPath(issue.path);
    throw invalid(`${field}: ${issueMessage(issue)}`, field);
  }
  return (parsed.data.resourceSpans ?? []).map((resourceSpans, r) => ({
    resource: attributesOf(resourceSpans.resource?.attributes, () => `resourceSpans[${r}].resource`),
    spans: (resourceSpans.scopeSpans ?? []).flatMap((scope, c) =>
      (scope.spans ?? []).map((span, i): OtlpSpan => {
        const at = () => `resourceSpans[${r}].scopeSpans[${c}].spans[${i}]`;
        return {
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId.toLowerCase() : null,
          name: span.name,
          startMs: storableTimeMs(nanosToMs(span.startTimeUnixNano), () => `${at()}.startTimeUnixNano`),
          endMs: storableTimeMs(nanosToMs(span.endTimeUnixNano), () => `${at()}.endTimeUnixNano`),
          attributes: attributesOf(span.attributes, at),
          events: (span.events ?? []).map((event, e) => ({
            name: event.name,
            atMs: storableTimeMs(nanosToMs(event.timeUnixNano), () => `${at()}.events[${e}].timeUnixNano`),
            attributes: attributesOf(event.attributes, () => `${at()}.events[${e}]`),
          })),
          statusCode: span.status?.code ?? 0,
          ...(span.status?.message ? { statusMessage: span.status.message } : {}),
        };
      }),
    ),
  }));
}

/**
 * What one request may hold, beyond its body's bytes (otlp-wire.ts): spans, span events, and the bytes
 * of its attributes (keys and text as UTF-8, a number or boolean 8). Each is checked before anything
 * is stored; a request past one is refused whole (413 naming the limit): send fewer spans a request.
 */
export const OTLP_REQUEST_LIMITS = { spans: 100_000, events: 50_000, attributeBytes: 16 * 1024 * 1024 } as const;

const tooLarge = (code: string, message: string) => new DomainError("too_large", code, message);

/** The UTF-8 bytes of attributes' keys and texts (a number or boolean 8), nested values included; walked without recursion. */
function attributeBytes(attributes: Attributes): number {
  let bytes = 0;
  const pending: AttributeValue[] = [attributes];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (typeof value === "string") bytes += Buffer.byteLength(value);
    else if (typeof value === "number" || typeof value === "boolean") bytes += 8;
    else if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (value !== null)
      for (const [key, item] of Object.entries(value)) {
        bytes += Buffer.byteLength(key);
        pending.push(item);
      }
  }
  return bytes;
}

/** 413 naming the limit when the request holds more than OTLP_REQUEST_LIMITS allows. */
export function refuseOverLimits(request: readonly OtlpResourceSpans[]): void {
  const limits = OTLP_REQUEST_LIMITS;
  let spans = 0;
  let events = 0;
  let bytes = 0;
  for (const { resource, spans: list } of request) {
    bytes += attributeBytes(resource);
    spans += list.length;
    for (const span of list) {
      events += span.events.length;
      bytes += attributeBytes(span.attributes);
      for (const event of span.events) bytes += attributeBytes(event.attributes);
    }
  }
  if (spans > limits.spans)
    throw tooLarge("too_many_spans", `the request holds ${spans} spans: at most ${limits.spans} a request (export in smaller batches)`);
  if (events > limits.events)
    throw tooLarge(
      "too_many_events",
      `the request holds ${events} span events: at most ${limits.events} a request (export in smaller batches)`,
    );
  if (bytes > limits.attributeBytes)
    throw tooLarge(
      "attributes_too_large",
      `the request's attributes hold ${bytes} bytes: at most ${limits.attributeBytes} a request (keys and text as UTF-8; export in smaller batches)`,
    );
}
