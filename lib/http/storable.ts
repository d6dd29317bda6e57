// What PostgreSQL can store, checked at the edge so that it never refuses a value mid-transaction
// (a 500, and the good runs of a batch lost with the bad one): text without NUL and in valid
// UTF-16, times in years 1 to 9999 with an offset it accepts, integers within their column's type.
// The schemas of every route and importer build on these; `parseInput` walks every parsed body,
// query and path for text and keys besides. Pure.
import { z } from "zod";

/** PostgreSQL's `integer`. */
export const INT4_MAX = 2_147_483_647;
/** PostgreSQL's `bigint` (run ids). */
export const BIGINT_MAX = 9_223_372_036_854_775_807n;

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Why PostgreSQL cannot store this text as it is, or null. NUL ends a C string: `text` and `jsonb`
 * refuse it (22021, 22P05). A lone surrogate (`"\ud800"` in JSON) is no character at all: it would
 * be stored as U+FFFD, so two different ids would become one idempotency key.
 */
export function unstorableTextReason(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain the NUL character (\\u0000)";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode (it holds a lone surrogate, an unpaired \\ud800-\\udfff)";
  return null;
}

/** `value` cut to at most `max` UTF-16 units without splitting a surrogate pair (which would leave a lone half). */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = value.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** A key or value shown in a field path or message, its NULs and lone surrogates escaped. */
export function printable(value: string): string {
  return value.replace(/\u0000|\p{Surrogate}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A body's items as sent, left for a use case to parse one by one so that one bad item refuses only
 * itself (a batch of runs, of live-run events). Not a plain array, so the edge's walk below passes
 * over them: each item is checked alone, where its refusal names it.
 */
export class UnparsedItems {
  constructor(readonly items: readonly unknown[]) {}
}

export interface Unstorable {
  /** The field, as `a.b.0.c`. */
  path: (string | number)[];
  message: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The first string or object key inside a JSON-like value that PostgreSQL cannot store, with its
 * path. Walks arrays and plain objects only (without recursion: bodies may nest 64 levels): a
 * value a schema turned into something else (a Date, a class a use case parses item by item) is
 * not descended into.
 */
export function findUnstorable(value: unknown, at: (string | number)[] = []): Unstorable | null {
  // Each entry links to its parent's, so a path is built only for the one value found (copying it at every level was quadratic in the depth).
  type Step = { value: unknown; key: string | number | null; parent: Step | null };
  const pathOf = (step: Step, last?: string): (string | number)[] => {
    const keys: (string | number)[] = last === undefined ? [] : [last];
    for (let s: Step | null = step; s && s.key !== null; s = s.parent) keys.push(s.key);
    return [...at, ...keys.reverse()];
  };
  const stack: Step[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const current = step.value;
    if (typeof current === "string") {
      const reason = unstorableTextReason(current);
      if (reason) return { path: pathOf(step), message: reason };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: step });
    } else if (isPlainObject(current)) {
      const keys = Object.keys(current);
      for (const key of keys) {
        const reason = unstorableTextReason(key);
        if (reason) return { path: pathOf(step, printable(key)), message: `a field name ${reason}` };
      }
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: current[keys[i]!], key: keys[i]!, parent: step });
    }
  }
  return null;
}

/** Text a column stores: the shape's own checks, then no NUL and no lone surrogate, with the field named. */
export const storableText = (field: string) =>
  z.string(`${field} must be text`).superRefine((value, ctx) => {
    const reason = unstorableTextReason(value);
    if (reason) ctx.addIssue({ code: "custom", message: `${field} ${reason}` });
  });

/** A whole number an `integer` column holds (≥ min). */
export const int4 = (field: string, min = 0) =>
  z
    .int(`${field} must be a whole number`)
    .min(min, `${field} must be at least ${min}`)
    .max(INT4_MAX, `${field} must be at most ${INT4_MAX.toLocaleString("en-US")} (PostgreSQL's integer)`);

/** Decimal digits naming a `bigint` id (a run's, a unit's): at most 9,223,372,036,854,775,807. */
export const bigintDigits = (field: string, what = "an id") =>
  z
    .string(`${field} must be ${what}`)
    .regex(/^\d{1,19}$/, `${field} must be ${what} (digits)`)
    // zod runs every check, also after the regex failed: BigInt only sees digits.
    .refine(
      (digits) => !/^\d{1,19}$/.test(digits) || BigInt(digits) <= BIGINT_MAX,
      `${field} must be ${what}: at most ${BIGINT_MAX} (PostgreSQL's bigint)`,
    );

/** The widest offset from UTC that PostgreSQL's timestamptz accepts (±15:59). */
const MAX_OFFSET_MINUTES = 15 * 60 + 59;
/** The instants a time may name: 0001-01-01 to 9999-12-31 in UTC (PostgreSQL has no year 0000, and a later year becomes `+010000` in JavaScript's ISO form, which PostgreSQL refuses). */
const FIRST_MS = Date.parse("0001-01-01T00:00:00Z");
const LAST_MS = Date.parse("9999-12-31T23:59:59.999Z");
export const STORABLE_TIME_RANGE = "between 0001-01-01 and 9999-12-31 (in UTC)";

/** Whether PostgreSQL's timestamptz stores this instant (epoch milliseconds) and JavaScript writes it in the ISO form PostgreSQL reads. */
export const isStorableInstant = (ms: number) => ms >= FIRST_MS && ms <= LAST_MS;

/**
 * An ISO-8601 time with a zone that PostgreSQL stores, and that reads back as the same ISO form: an
 * offset within ±15:59, and an instant from 0001-01-01 to 9999-12-31 in UTC.
 */
export const pgTime = (field: string, message: string) =>
  z.iso.datetime({ offset: true, message }).superRefine((value, ctx) => {
    const offset = /([+-])(\d{2}):?(\d{2})$/.exec(value);
    if (offset && Number(offset[2]) * 60 + Number(offset[3]) > MAX_OFFSET_MINUTES) {
      ctx.addIssue({ code: "custom", message: `${field}'s offset from UTC must be at most ±15:59` });
      return;
    }
    if (!isStorableInstant(Date.parse(value))) ctx.addIssue({ code: "custom", message: `${field} must be ${STORABLE_TIME_RANGE}` });
  });

/** A calendar date (YYYY-MM-DD) PostgreSQL's `date` stores: years 0001 to 9999. */
export const pgDate = (message: string) => z.iso.date(message).refine((value) => !value.startsWith("0000"), message);
