import { describe, expect, it } from "vitest";
import { conflict, DomainError, type ErrorKind } from "../errors";
import { errorBody, statusOf } from "./errors";

describe("a refusal as an HTTP answer", () => {
  it("gives each kind its status", () => {
    // Every kind, listed: a new kind fails to compile here until its status is written down.
    const statuses = {
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
    } satisfies Record<ErrorKind, number>;
    for (const [kind, status] of Object.entries(statuses)) expect(statusOf(kind as ErrorKind), kind).toBe(status);
  });

  it("answers {error: {code, message, field?, details?}}", () => {
    expect(errorBody(new DomainError("not_found", "not_found", "run r1 not found"))).toEqual({
      error: { code: "not_found", message: "run r1 not found" },
    });
    const stale = conflict("edit_conflict", "baseVersion: the rule is at version 3 now", "baseVersion", { current: { version: 3 } });
    expect(errorBody(stale)).toEqual({
      error: {
        code: "edit_conflict",
        message: "baseVersion: the rule is at version 3 now",
        field: "baseVersion",
        details: { current: { version: 3 } },
      },
    });
  });
});
