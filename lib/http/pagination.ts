// One pagination schema for every list, API and page alike: optional filters where an empty value
// means unset, a bounded page size, and opaque keyset cursors.
import { z } from "zod";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export const oneOf = <const T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, `${field} must be one of ${values.join(", ")}`);

/** A select's "any" submits an empty value: absent and "" both mean no filter. A repeated key stays an array and is refused. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

export const wholeNumber = (field: string) =>
  z
    .string(`${field} must be a whole number`)
    .regex(/^\d{1,9}$/, `${field} must be a whole number`)
    .transform(Number);

export const pageSize = optional(
  wholeNumber("limit").pipe(
    z.number().int().min(1, "limit must be at least 1").max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`),
  ),
).transform((limit) => limit ?? DEFAULT_PAGE_SIZE);

/** A LIKE pattern matching names that contain `text`: its `%` and `_` are literal characters, not patterns. */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Cursors are opaque to callers: the keyset position of the last row shown, as base64url JSON.
export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function cursorOf<T extends z.ZodType>(position: T) {
  return z
    .string("cursor must be a string")
    .max(1_000, "cursor is too long")
    .transform((raw, ctx) => {
      let decoded: unknown;
      try {
        decoded = /^[A-Za-z0-9_-]+$/.test(raw) ? JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) : undefined;
      } catch {
        decoded = undefined;
      }
      const parsed = position.safeParse(decoded);
      if (parsed.success) return parsed.data as z.output<T>;
      ctx.addIssue({ code: "custom", message: "cursor is not one this list handed out (use nextCursor as given)" });
      return z.NEVER;
    });
}
