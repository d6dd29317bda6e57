// OTLP trace requests (issue 24 §1) as the receiver reads them: the OTLP/JSON shape of
// ExportTraceServiceRequest (opentelemetry-proto 1.x, the protobuf decoded into the same shape by
// otlp-decode.ts) checked with one zod schema, then made plain: hex ids, times in epoch
// milliseconds, attributes as a flat record of values. Unknown fields are ignored, as OTLP asks.
import { z } from "zod";
import { invalid } from "../../errors";
import { issueMessage } from "../../http/input";

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

type AnyValueJson = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueJson[] };
  kvlistValue?: { values?: KeyValueJson[] };
};
type KeyValueJson = { key: string; value?: AnyValueJson };

const int64 = z.union([z.string().regex(/^-?\d+$/, "must be an integer"), z.number().int("must be an integer")]);
const anyValueSchema: z.ZodType<AnyValueJson> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: int64.optional(),
    doubleValue: z.union([z.number(), z.string()]).optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.object({ values: z.array(anyValueSchema).optional() }).optional(),
    kvlistValue: z.object({ values: z.array(keyValueSchema).optional() }).optional(),
  }),
);
const keyValueSchema: z.ZodType<KeyValueJson> = z.lazy(() => z.object({ key: z.string(), value: anyValueSchema.optional() }));
const attributesSchema = z.array(keyValueSchema).optional();

const hexId = (bytes: number, what: string) =>
  z
    .string(`${what} is required`)
    .regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), `${what} must be ${bytes} bytes (${bytes * 2} hex digits)`)
    .refine((id) => !/^0+$/.test(id), `${what} must not be all zeros`)
    .transform((id) => id.toLowerCase());
const unixNano = z.union([z.string().regex(/^\d+$/, "must be nanoseconds since the epoch"), z.number().int().min(0)]);
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
    .regex(/^([0-9a-fA-F]{16})?$/, "parentSpanId must be empty or 8 bytes (16 hex digits)")
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

const nanosToMs = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

function valueOf(value: AnyValueJson | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return null;
}

function attributesOf(list: KeyValueJson[] | undefined): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of list ?? []) attributes[key] = valueOf(value);
  return attributes;
}

/** The request's spans by resource; 400 naming the field for anything the schema refuses (nothing is then stored). */
export function spansOfRequest(body: unknown): OtlpResourceSpans[] {
  const parsed = exportTraceServiceRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    throw invalid(`${field}: ${issueMessage(issue)}`, field);
  }
  return (parsed.data.resourceSpans ?? []).map((resourceSpans) => ({
    resource: attributesOf(resourceSpans.resource?.attributes),
    spans: (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): OtlpSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ? span.parentSpanId.toLowerCase() : null,
        name: span.name,
        startMs: nanosToMs(span.startTimeUnixNano),
        endMs: nanosToMs(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name,
          atMs: nanosToMs(event.timeUnixNano),
          attributes: attributesOf(event.attributes),
        })),
        statusCode: span.status?.code ?? 0,
        ...(span.status?.message ? { statusMessage: span.status.message } : {}),
      })),
    ),
  }));
}
