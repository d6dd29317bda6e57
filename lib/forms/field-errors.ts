// zod issues as a form says them: the field named as the form labels it, what is allowed, and the
// value at fault, never an internal name ("delaysMs.2") or zod's own wording ("Too big: expected
// string to have <=4000 characters"). Pure: the forms and the tests call the same function.

/** How a form names one field and what it accepts ("a whole number from 1 to 100"). */
export interface FieldSpec {
  label: string;
  allowed?: string;
  /** Said instead of a refinement's own message (e.g. "each delay only once"). */
  custom?: string;
}

/** The part of a zod issue this reads (zod 4's issue shapes). */
export interface IssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  origin?: string;
  values?: readonly unknown[];
  format?: string;
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
const ordinal = (n: number) => ORDINALS[n - 1] ?? `${n}th`;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

const shown = (value: unknown) => (typeof value === "string" ? `“${value}”` : JSON.stringify(value));
const missing = (value: unknown) =>
  value === undefined || value === null || value === "" || (typeof value === "number" && Number.isNaN(value));

/** One issue in the form's words. */
export function issueMessage(issue: IssueLike, input: unknown, spec: FieldSpec): string {
  const item = typeof issue.path[1] === "number" ? (issue.path[1] as number) : null;
  const value = valueAt(input, issue.path);
  const subject = item === null ? spec.label : `${spec.label}: the ${ordinal(item + 1)} value (${shown(value)})`;
  const allowed = spec.allowed ? `; enter ${spec.allowed}` : "";
  switch (issue.code) {
    case "invalid_type":
      if (missing(value))
        return item === null ? `${spec.label} is required${allowed}` : `${spec.label}: the ${ordinal(item + 1)} value is empty${allowed}`;
      if (issue.expected === "int") return `${subject} must be a whole number${allowed}`;
      if (issue.expected === "number") return `${subject} is not a number${allowed}`;
      return `${subject} must be ${issue.expected === "string" ? "text" : `a ${issue.expected}`}${allowed}`;
    case "too_small":
      if (issue.origin === "string")
        return Number(issue.minimum) <= 1 ? `${subject} must not be empty` : `${subject} must be at least ${issue.minimum} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `${spec.label}: choose at least ${issue.minimum}`;
      return `${subject} must be at least ${issue.minimum}${allowed}`;
    case "too_big":
      if (issue.origin === "string")
        return `${subject} must be at most ${Number(issue.maximum).toLocaleString("en-US")} characters (it has ${typeof value === "string" ? value.length.toLocaleString("en-US") : "more"})`;
      if (issue.origin === "array" || issue.origin === "set") return `${spec.label}: at most ${issue.maximum} values`;
      return `${subject} must be at most ${issue.maximum}${allowed}`;
    case "invalid_value":
      return `${subject} must be one of ${(issue.values ?? []).map(String).join(", ")}`;
    case "invalid_format":
      return `${subject} must be ${spec.allowed ?? `a valid ${issue.format ?? "value"}`}`;
    case "custom":
      // A refinement's own message may start with the schema's name for the field ("sources: …"): the label says it instead.
      return `${subject}: ${spec.custom ?? messageAfterField(issue.message, String(issue.path[0] ?? ""))}`;
    default:
      return `${subject}: ${spec.custom ?? "not accepted"}${allowed}`;
  }
}

/**
 * Every field's first issue, keyed by the field (the first path segment); issues of no known field
 * under "form". `input` is what was validated, so that a message can quote the value at fault.
 */
export function fieldErrors(issues: readonly IssueLike[], input: unknown, fields: Record<string, FieldSpec>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "form");
    const spec = fields[key];
    if (!spec) {
      errors.form ??= issue.code === "unrecognized_keys" ? "The form sent a field the server does not accept." : issue.message;
      continue;
    }
    errors[key] ??= issueMessage(issue, input, spec);
  }
  return errors;
}

/**
 * A server's 400 ({field: "delaysMs.2", message}) in the form's words: the field's label in place of
 * its internal name at the start of the message.
 */
export function serverFieldError(
  field: string | undefined,
  message: string,
  fields: Record<string, FieldSpec>,
): { key: string; message: string } {
  const [key = "form", index] = (field ?? "").split(".");
  const spec = fields[key];
  if (!spec) return { key: "form", message };
  const subject = index !== undefined && /^\d+$/.test(index) ? `${spec.label}: the ${ordinal(Number(index) + 1)} value` : spec.label;
  return { key, message: `${subject}: ${messageAfterField(message, key)}` };
}

/**
 * A server's message without the field path it starts with, for a label to take its place: the API
 * names the field from the request's part ("body.rule.threshold: …", lib/http/input.ts), and an index
 * after `field` goes too ("delaysMs.1: …" for delaysMs). Other messages are answered as they are.
 */
export function messageAfterField(message: string, field: string): string {
  let bare = message.replace(/^(body|query|path)\./, "");
  // The path, then a refinement's own prefix ("sources.1: sources: each source …"): neither is a word the form shows.
  while (field !== "" && bare.startsWith(field)) bare = bare.slice(field.length).replace(/^[.\d]*:?\s*/, "");
  return bare;
}
