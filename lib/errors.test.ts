import { describe, expect, it } from "vitest";
import { conflict, DomainError, forbidden, invalid, notFound } from "./errors";

describe("domain errors", () => {
  it("are Errors with a kind, a wire code, a message and an optional field and details", () => {
    const error = notFound("evaluation");
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      kind: "not_found",
      code: "not_found",
      message: "evaluation not found",
      field: undefined,
      details: undefined,
    });
    expect(notFound("userId: user u1", "userId")).toMatchObject({ message: "userId: user u1 not found", field: "userId" });
    expect(invalid("body.at: before the request", "at")).toMatchObject({
      kind: "invalid",
      code: "invalid_request",
      message: "body.at: before the request",
      field: "at",
    });
    expect(forbidden("all: only an admin may list every share link", "all")).toMatchObject({
      kind: "forbidden",
      code: "forbidden",
      field: "all",
    });
    expect(conflict("edit_conflict", "stale", "baseVersion", { current: 2 })).toMatchObject({
      kind: "conflict",
      code: "edit_conflict",
      field: "baseVersion",
      details: { current: 2 },
    });
    expect(conflict("last_admin", "the last active admin cannot be deactivated")).toMatchObject({
      kind: "conflict",
      code: "last_admin",
      field: undefined,
    });
  });
});
