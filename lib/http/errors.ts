// The one error type a handler throws to answer the caller, and its mapping to an HTTP answer.
// Shared by the web API (lib/http/route.ts) and the delayed-write service (lib/delayed-write/server.ts).

/** An error a route handler means to show the caller, with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Shown to the caller with the error, e.g. both versions of an edit conflict. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);

/** The JSON body of an error answer: `{error: {code, message, field?, details?}}`. */
export function errorBody(error: ApiError): { error: Record<string, unknown> } {
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
