// A refusal (lib/errors.ts) as an HTTP answer: its status and JSON body. Used by the edges only: the
// web API (lib/http/route/api-route.ts) and the delayed-write service (lib/delayed-write/server.ts).
import type { DomainError, ErrorKind } from "../errors";

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

/** The HTTP status of a refusal of this kind. */
export const statusOf = (kind: ErrorKind): number => STATUS[kind];

/** The JSON body of an error answer: `{error: {code, message, field?, details?}}`. */
export function errorBody(error: DomainError): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.field ? { field: error.field } : {}),
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/** The answer for an unexpected error: a 500 that leaks nothing (the error is logged on the server). */
export const INTERNAL_ERROR_BODY = { error: { code: "internal", message: "internal error" } } as const;
