// Parsing what a caller sends: bounded JSON bodies, query strings and path parameters, each through
// its zod schema and then the storable-text check (storable.ts), every problem a 400 that names the
// field. No framework code: the web API and the delayed-write service both use it.
import { z } from "zod";
import { DomainError, invalid } from "../errors";
import { findUnstorable, printable } from "./storable";

/**
 * Deepest nesting of arrays and objects a JSON body may have. zod (and JSON.parse's callers) walk a
 * value recursively: a body nested 20,000 levels deep overflowed the stack inside zod, a 500. No
 * field of any body here needs more than a handful of levels; trace arguments get 64.
 */
export const MAX_JSON_DEPTH = 64;
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/**
 * The deepest nesting of `[` and `{` in JSON text, counted without recursion (and without parsing),
 * stopping as soon as it passes `limit`. Brackets inside strings do not count: a string is skipped
 * to its closing quote with indexOf (most of a body is strings; a loop over their characters took
 * longer than JSON.parse on a 1,000-run ingest batch).
 */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The closing quote is the first one after an even number of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return deepest; // unterminated: JSON.parse refuses it
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        i = end;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}

/** Parses JSON text within the depth limit: malformed or too deep is a 400 naming the limit. An empty body is `{}`. */
export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonNestingDepth(text, maxDepth) > maxDepth) {
    throw new DomainError(
      "invalid",
      "too_deep",
      `body nests arrays and objects more than ${maxDepth} levels deep (the limit is ${maxDepth})`,
    );
  }
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new DomainError("invalid", "malformed_json", `body is not valid JSON: ${(error as Error).message}`);
  }
}

/** `application/json` or `application/<x>+json`, with any parameters (`; charset=utf-8`). */
export function isJsonMediaType(contentType: string | null): boolean {
  const essence = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return /^application\/([^/+\s]+\+)?json$/.test(essence);
}

const notUtf8 = () => new DomainError("invalid", "malformed_json", "body is not valid UTF-8 (JSON is sent as UTF-8)");
const tooLarge = (maxBytes: number) => new DomainError("too_large", "body_too_large", `body exceeds ${maxBytes} bytes (the limit)`);
const notJson = (contentType: string | null) =>
  new DomainError(
    "unsupported_media_type",
    "unsupported_media_type",
    `send the body as application/json (content-type ${contentType === null ? "missing" : `was ${contentType}`})`,
  );

/**
 * Reads a request's JSON body within the size and depth limits, before any schema sees it. The size
 * is counted while the body streams: past `maxBytes` reading stops and the answer is 413, so a
 * chunked body with no content-length is never held whole. A non-empty body that is not JSON
 * is a 415; an empty body is `{}` whatever its type (routes like cancel are sent none).
 */
export async function readJsonBody(request: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  const json = isJsonMediaType(contentType);
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > 0 && !json) throw notJson(contentType);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return parseJsonText("");
  const reader = request.body.getReader();
  // UTF-8, a byte-order mark dropped, chunk by chunk; a byte that is not UTF-8 refuses the body rather
  // than become U+FFFD, as request.text() would make it: two different ids must not become one.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (bytes?: Uint8Array) => {
    try {
      return decoder.decode(bytes, { stream: bytes !== undefined });
    } catch {
      throw notUtf8();
    }
  };
  let text = "";
  let received = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (chunk.value.length === 0) continue;
      if (!json) throw notJson(contentType);
      received += chunk.value.length;
      if (received > maxBytes) throw tooLarge(maxBytes);
      text += decode(chunk.value);
    }
    text += decode();
  } catch (error) {
    // The rest of the body is left unread, for the web server's edge to read and drop after the answer
    // (drained-requests.ts): cancelled here, it destroyed the connection under a client still sending.
    reader.releaseLock();
    throw error;
  }
  return parseJsonText(text);
}

/** An issue's own words: a record key's refusal is the key schema's message, not zod's "Invalid key in record". */
export function issueMessage(issue: z.core.$ZodIssue): string {
  return issue.code === "invalid_key" && issue.issues[0] ? issue.issues[0].message : issue.message;
}

/** Parses input with its schema; the first problem becomes a 400 that names the field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, where: "body" | "query" | "path"): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) {
    // Every route's text and keys, whatever its schema says of them, before anything is stored.
    const unstorable = findUnstorable(result.data);
    if (unstorable) {
      const field = unstorable.path.join(".");
      throw invalid(`${where}${field ? `.${field}` : ""}: ${unstorable.message}`, field || undefined);
    }
    return result.data;
  }
  const issue = result.error.issues[0]!;
  // An unknown key inside an object is named by its whole path (tools.read_file.colour), as any other field is.
  const path = issue.path.map((p) => printable(String(p)));
  const field =
    issue.code === "unrecognized_keys" ? issue.keys.map((key) => [...path, printable(key)].join(".")).join(", ") : path.join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `unknown field(s) in ${where}: ${field}`
      : `${where}${field ? `.${field}` : ""}: ${issueMessage(issue)}`;
  throw invalid(message, field || undefined);
}

export type SearchParams = Record<string, string | string[] | undefined>;

/** URLSearchParams as an object: a repeated key becomes an array, so a schema can refuse or accept it. */
export function queryObject(params: URLSearchParams): SearchParams {
  const query: SearchParams = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** A query flag written `?all=true` (or `false`); anything else is refused, naming the parameter. */
export const queryFlag = (name: string) => z.enum(["true", "false"], `${name} must be true or false`).transform((v) => v === "true");

/** A request's body as bytes, counted while it streams: past `maxBytes` reading stops (the rest is left as readJsonBody leaves it) and the answer is 413. */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Buffer> {
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    received += chunk.value.length;
    if (received > maxBytes) {
      reader.releaseLock();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
}
