// The generic half of the hostile corpus: every mutation of a valid JSON body (each field changed in
// turn to text PostgreSQL cannot store, numbers past their column, times and dates it refuses, wrong
// types, unknown and NUL keys), and the bodies that are wrong before any schema sees them.
import type { Caller, HostileRequest } from "./requests";

export const NUL = "\u0000";
export const HIGH = "\ud800";
const LOW = "\udc00";
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One changed value of a body, with the field it changed. */
interface Mutation {
  field: string;
  what: string;
  body: Json;
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  const copy = structuredClone(root);
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** Every leaf and object of `value`, with its path. */
function nodes(value: Json, path: (string | number)[] = []): { path: (string | number)[]; value: Json }[] {
  const children = Array.isArray(value)
    ? value.map((v, i) => nodes(v, [...path, i]))
    : value && typeof value === "object"
      ? Object.entries(value).map(([k, v]) => nodes(v, [...path, k]))
      : [];
  return [{ path, value }, ...children.flat()];
}

const STRING_VALUES: [string, (s: string) => Json][] = [
  ["+ NUL", (s) => `${s}${NUL}`],
  ["NUL only", () => NUL],
  ["+ lone high surrogate", (s) => `${s}${HIGH}`],
  ["lone low surrogate first", (s) => `${LOW}${s}`],
  ["100,000 characters", (s) => s.padEnd(100_000, "x")],
  ["empty", () => ""],
  ["whitespace", () => " \t\n "],
  ["a number", () => 1],
  ["null", () => null],
  ["an object", () => ({ nested: "x" })],
];
const TIME_VALUES: [string, Json][] = [
  ["year 0000", "0000-01-01T00:00:00Z"],
  ["offset +16:00", "2026-12-01T10:00:00+16:00"],
  ["30 February", "2026-02-30T10:00:00Z"],
  ["year 275760", "275760-09-13T00:00:00Z"],
  ["nanoseconds at -15:59", "9999-12-31T23:59:59.999999999-15:59"],
];
const DATE_VALUES: [string, Json][] = [
  ["year 0000", "0000-01-01"],
  ["30 February", "2026-02-30"],
  ["year 10000", "10000-01-01"],
];
const NUMBER_VALUES: [string, Json][] = [
  ["2^31", 2 ** 31],
  ["2^40", 2 ** 40],
  ["2^53 - 1", Number.MAX_SAFE_INTEGER],
  ["1e308", 1e308],
  ["-1", -1],
  ["0.5", 0.5],
  ["a numeric string", "1"],
];

/** The mutations of a body: each field changed in turn, and keys added. */
export function mutations(body: Json): Mutation[] {
  const out: Mutation[] = [];
  for (const { path, value } of nodes(body)) {
    const field = path.join(".") || "(body)";
    const change = (what: string, to: Json | undefined) =>
      out.push({ field, what, body: path.length === 0 ? (to as Json) : setAt(body, path, to) });
    if (typeof value === "string") {
      for (const [what, make] of STRING_VALUES) change(what, make(value));
      if (ISO_TIME.test(value)) for (const [what, to] of TIME_VALUES) change(what, to);
      if (ISO_DATE.test(value)) for (const [what, to] of DATE_VALUES) change(what, to);
    } else if (typeof value === "number") {
      for (const [what, to] of NUMBER_VALUES) change(what, to);
    } else if (typeof value === "boolean") {
      change("the string true", "true");
    } else if (Array.isArray(value)) {
      change("empty list", []);
      change("an object", {});
      if (value.length > 0) change("its item twice", [...value, value[0]!]);
    } else if (value && typeof value === "object") {
      change("an unknown key", { ...value, unexpectedField: 1 });
      change("a key with NUL", { ...value, [`k${NUL}`]: "x" });
      change("a key with a lone surrogate", { ...value, [`k${HIGH}`]: "x" });
      change("__proto__ key", JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(value).slice(1)}`) as Json);
      change("a list", []);
    }
    if (path.length > 0) change("null", null);
  }
  return out;
}

let twentyMb: string | undefined;
/** One 20 MB body, made once: every route gets the same string. */
const twentyMegabytes = () => (twentyMb ??= `{"padding": "${"x".repeat(20 * 1024 * 1024)}"}`);

/** Bodies that are wrong before any schema sees them. */
export function transportCases(method: HostileRequest["method"], path: string, as: Caller, valid: string): HostileRequest[] {
  const named = (what: string, request: Partial<HostileRequest>): HostileRequest => ({
    name: `${method} ${path} ${what}`,
    method,
    path,
    as,
    ...request,
  });
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  return [
    named("not JSON", { body: "{not json" }),
    named("truncated JSON", { body: valid.slice(0, Math.max(1, Math.floor(valid.length / 2))) }),
    named("JSON null", { body: "null" }),
    named("a JSON list", { body: "[]" }),
    named("a JSON string", { body: '"x"' }),
    named("nested 100,000 deep", { body: deep(100_000) }),
    named("a field nested 70 deep", { body: `{"x": ${deep(70)}}` }),
    named("valid JSON as text/plain", { body: valid, contentType: "text/plain" }),
    named("valid JSON with no content type", { body: valid, contentType: null }),
    named("valid JSON as a form", { body: valid, contentType: "application/x-www-form-urlencoded" }),
    named("a byte-order mark and JSON", { body: `\ufeff${valid}` }),
    named("invalid UTF-8", { body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }),
    named("UTF-16 JSON", { body: new Uint8Array(Buffer.from(`\ufeff${valid}`, "utf16le")) }),
    named("an escaped NUL in a key", { body: `{"\\u0000": 1}` }),
    named("20 MB", { body: twentyMegabytes() }),
    named("60 MB chunked", { body: { chunks: 60, chunkBytes: 1024 * 1024 } }),
  ];
}
