import { createHash } from "node:crypto";

/**
 * The canonical JSON of a value: object keys sorted (recursively), arrays in order, Dates as ISO
 * strings, no whitespace. A reviewer can recompute contentHash() from the content they were shown,
 * whatever key order it reached them in (PostgreSQL's jsonb reorders keys, for one).
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      // NaN and ±Infinity have no JSON form: JSON.stringify would turn them into null silently.
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return JSON.stringify(value);
    case "object":
      return canonicalObject(value as Record<string, unknown>);
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
  }
}

function canonicalObject(object: Record<string, unknown>): string {
  // Undefined members are left out, as JSON.stringify does, so a JSON round trip keeps the hash.
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(",")}}`;
}

/** SHA-256 (hex) of the canonical JSON of `value`. */
export function contentHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value), "utf8").digest("hex");
}
