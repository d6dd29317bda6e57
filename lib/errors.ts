// The errors the product's code throws to refuse a caller, with no HTTP in them: each has a kind
// (what went wrong, in the domain's words) and the wire code callers read. The edges choose the
// answer: the web API (lib/http/route/api-route.ts) and the delayed-write service (lib/delayed-write/server.ts)
// map the kind to an HTTP status (lib/http/errors.ts); pages and CLIs branch on the kind.

/**
 * What kind of refusal: each is one HTTP status at the edges. `too_large` and
 * `unsupported_media_type` are said of a request's body; `method_not_allowed` only by the
 * delayed-write service; `unavailable` when a service the request needs is not configured; `gone`
 * and `rate_limited` by a share link that no longer opens or is asked too often.
 */
export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "gone"
  | "too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "unavailable";

/** A refusal meant for the caller: its kind, its wire code (e.g. `edit_conflict`), a message naming the field. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Shown to the caller with the error, e.g. both versions of an edit conflict. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** `not_found`: "<what> not found". */
export const notFound = (what: string, field?: string) => new DomainError("not_found", "not_found", `${what} not found`, field);

/** `invalid_request`: the message names the field first ("body.name: …"). */
export const invalid = (message: string, field?: string) => new DomainError("invalid", "invalid_request", message, field);

/** `forbidden`: the caller's role or ownership does not allow it. */
export const forbidden = (message: string, field?: string) => new DomainError("forbidden", "forbidden", message, field);

/** A conflict with the stored state, under its own code (`edit_conflict`, `name_taken`, `last_admin`, …). */
export const conflict = (code: string, message: string, field?: string, details?: unknown) =>
  new DomainError("conflict", code, message, field, details);
