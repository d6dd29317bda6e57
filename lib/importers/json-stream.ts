// A JSON document too large to read whole, read as it streams: its top-level object field by field,
// and the elements of one array field (Inspect's `samples`) one at a time. Each value is cut out of
// the bytes by a small scanner (strings, escapes, nesting) and handed to JSON.parse on its own, so
// memory holds one field or one element at a time, never the file. Fields or elements are
// collected only when wanted; the others are scanned and dropped.
import { SkippedLog } from "./imported-log";

export interface JsonStreamHandlers {
  /** The array field whose elements go to onElement one by one. */
  arrayField: string;
  /** Told of each other top-level field (when collectFields). */
  onField?: (key: string, value: unknown) => void;
  /** Told of each element of arrayField (when given). */
  onElement?: (value: unknown) => void;
  /** A field or element larger than this is refused (SkippedLog), naming it. */
  maxValueBytes: number;
}

const enum State {
  Open,
  KeyOrEnd,
  Key,
  Colon,
  Value,
  InValue,
  AfterField,
  ArrayFirst,
  Element,
  AfterElement,
  End,
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** A scanner fed chunk by chunk; `end()` checks that the document closed. Throws SkippedLog with the byte offset of what is wrong. */
export function jsonObjectStream(handlers: JsonStreamHandlers) {
  let state = State.Open;
  let offset = 0;
  let first = true; // no field yet: `}` may close the object
  let key = "";
  let inArray = false; // the value being scanned is an element of arrayField
  // The value being scanned: its kind, nesting depth, string state, and the bytes kept of it.
  let kind: "container" | "string" | "scalar" = "scalar";
  let depth = 0;
  let inString = false;
  let escaped = false;
  let keep = false;
  let parts: Buffer[] = [];
  let size = 0;

  const fail = (what: string): never => {
    throw new SkippedLog(`not valid JSON at byte ${offset}: ${what}`);
  };
  const what = () => (inArray ? `an element of ${handlers.arrayField}` : `the field ${key}`);
  const collect = (chunk: Buffer, from: number, to: number) => {
    size += to - from;
    if (size > handlers.maxValueBytes)
      throw new SkippedLog(`${what()} is larger than the ${MB(handlers.maxValueBytes)} one value of a log can be imported at`);
    if (keep && to > from) parts.push(chunk.subarray(from, to));
  };
  const startValue = (byte: number) => {
    kind = byte === 0x7b || byte === 0x5b ? "container" : byte === QUOTE ? "string" : "scalar";
    depth = 0;
    inString = false;
    escaped = false;
    parts = [];
    size = 0;
    keep = inArray ? handlers.onElement !== undefined : handlers.onField !== undefined;
  };
  const finishValue = () => {
    if (!keep) return;
    const text = Buffer.concat(parts).toString("utf8");
    parts = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      fail(`${what()}: ${(error as Error).message}`);
    }
    if (inArray) handlers.onElement!(value);
    else handlers.onField!(key, value);
  };

  function feed(chunk: Buffer): void {
    let start = 0; // where the value being scanned began in this chunk
    for (let i = 0; i < chunk.length; i++, offset++) {
      const byte = chunk[i]!;
      switch (state) {
        case State.InValue:
        case State.Key: {
          if (inString || kind === "string" || state === State.Key) {
            if (escaped) escaped = false;
            else if (byte === BACKSLASH) escaped = true;
            else if (byte === QUOTE) {
              if (state === State.Key) {
                // the end of a key (its opening quote was kept)
                try {
                  key = JSON.parse(Buffer.concat([...parts, chunk.subarray(start, i + 1)]).toString("utf8")) as string;
                } catch {
                  fail("a field name that is not a valid JSON string");
                }
                parts = [];
                state = State.Colon;
              } else if (kind === "container") inString = false;
              else {
                collect(chunk, start, i + 1);
                finishValue();
                state = inArray ? State.AfterElement : State.AfterField;
              }
            }
            continue;
          }
          if (kind === "container") {
            if (byte === QUOTE) inString = true;
            else if (byte === 0x7b || byte === 0x5b) depth++;
            else if (byte === 0x7d || byte === 0x5d) {
              depth--;
              if (depth === 0) {
                collect(chunk, start, i + 1);
                finishValue();
                state = inArray ? State.AfterElement : State.AfterField;
              }
            }
            continue;
          }
          // a scalar ends before the first separator
          if (WHITESPACE.has(byte) || byte === 0x2c || byte === 0x7d || byte === 0x5d) {
            collect(chunk, start, i);
            finishValue();
            state = inArray ? State.AfterElement : State.AfterField;
            i--;
            offset--;
          }
          continue;
        }
        default:
          break;
      }
      if (WHITESPACE.has(byte) || (offset === 0 && byte === 0xef)) continue; // whitespace, or a byte-order mark's first byte
      if (offset < 3 && state === State.Open && (byte === 0xbb || byte === 0xbf)) continue;
      switch (state) {
        case State.Open:
          if (byte !== 0x7b) fail("a log is a JSON object, and this does not start with {");
          state = State.KeyOrEnd;
          break;
        case State.KeyOrEnd:
          if (byte === 0x7d && first) state = State.End;
          else if (byte === QUOTE) {
            state = State.Key;
            escaped = false;
            parts = [];
            start = i;
          } else fail(first ? "expected a field name or }" : "expected a field name");
          break;
        case State.Colon:
          if (byte !== 0x3a) fail(`expected : after the field name ${key}`);
          state = State.Value;
          break;
        case State.Value:
          first = false;
          if (key === handlers.arrayField && byte === 0x5b) {
            state = State.ArrayFirst;
            break;
          }
          inArray = false;
          state = State.InValue;
          startValue(byte);
          start = i;
          if (kind === "container") depth = 1;
          break;
        case State.AfterField:
          inArray = false;
          if (byte === 0x2c) state = State.KeyOrEnd;
          else if (byte === 0x7d) state = State.End;
          else fail(`expected , or } after the field ${key}`);
          break;
        case State.ArrayFirst:
        case State.Element:
          if (byte === 0x5d && state === State.ArrayFirst) {
            state = State.AfterField;
            break;
          }
          inArray = true;
          state = State.InValue;
          startValue(byte);
          start = i;
          if (kind === "container") depth = 1;
          break;
        case State.AfterElement:
          if (byte === 0x2c) state = State.Element;
          else if (byte === 0x5d) state = State.AfterField;
          else fail(`expected , or ] in ${handlers.arrayField}`);
          break;
        case State.End:
          fail("more content after the end of the document");
      }
    }
    // A value or key that goes on into the next chunk keeps what it has so far.
    if (state === State.InValue) collect(chunk, start, chunk.length);
    else if (state === State.Key) parts.push(chunk.subarray(start));
  }

  return {
    feed,
    end(): void {
      if (state !== State.End)
        throw new SkippedLog(
          `the file ends at byte ${offset} in the middle of its JSON (${state === State.Open ? "it is empty" : `inside ${inArray ? `an element of ${handlers.arrayField}` : key ? `the field ${key}` : "the object"}`}): is it truncated?`,
        );
    },
  };
}
