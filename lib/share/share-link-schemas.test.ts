import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { parseInput } from "../http/input";
import { createShareLinkSchema, listShareLinksQuerySchema, shareLinkIdSchema } from "./share-link-schemas";

const id = "0b6c3a52-7a61-4f0e-9d8e-2c4a1f5b7e90";

describe("createShareLinkSchema", () => {
  it("defaults to a frozen link with the instance's expiry (expiresInDays left out)", () => {
    expect(createShareLinkSchema.parse({ resourceType: "experiment", resourceId: id })).toEqual({
      resourceType: "experiment",
      resourceId: id,
      mode: "frozen",
    });
    expect(createShareLinkSchema.parse({ resourceType: "protocol_matrix" })).toEqual({ resourceType: "protocol_matrix", mode: "frozen" });
  });

  it("keeps an explicit null expiry (never) apart from an omitted one, and trims the note", () => {
    const parsed = createShareLinkSchema.parse({
      resourceType: "run",
      resourceId: id,
      mode: "live",
      expiresInDays: null,
      note: "  for the reviewers  ",
    });
    expect(parsed).toEqual({ resourceType: "run", resourceId: id, mode: "live", expiresInDays: null, note: "for the reviewers" });
    expect("expiresInDays" in parsed).toBe(true);
  });

  it.each([
    [{ resourceType: "protocol_matrix", resourceId: id }, "resourceId"],
    [{ resourceType: "dashboard" }, "resourceType"],
    [{ resourceType: "experiment", resourceId: "not-a-uuid" }, "resourceId"],
    [{ resourceType: "experiment" }, "resourceId"],
    [{ resourceType: "experiment", resourceId: id, mode: "snapshot" }, "mode"],
    [{ resourceType: "experiment", resourceId: id, expiresInDays: 0 }, "expiresInDays"],
    [{ resourceType: "experiment", resourceId: id, expiresInDays: 3651 }, "expiresInDays"],
    [{ resourceType: "experiment", resourceId: id, expiresInDays: 1.5 }, "expiresInDays"],
    [{ resourceType: "experiment", resourceId: id, expiresInDays: "7" }, "expiresInDays"],
    [{ resourceType: "experiment", resourceId: id, note: "x".repeat(201) }, "note"],
    [{ resourceType: "experiment", resourceId: id, token: "mine" }, "token"],
  ])("refuses %j, naming %s", (body, field) => {
    try {
      parseInput(createShareLinkSchema, body, "body");
      expect.unreachable("parsed");
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe("invalid");
      expect((error as DomainError).field).toBe(field);
    }
  });

  it("names resourceId in its message", () => {
    const result = createShareLinkSchema.safeParse({ resourceType: "run", resourceId: "42" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/resourceId/);
  });
});

describe("shareLinkIdSchema", () => {
  it("accepts a UUID and nothing else", () => {
    expect(shareLinkIdSchema.parse({ id })).toEqual({ id });
    expect(shareLinkIdSchema.safeParse({ id: "1" }).success).toBe(false);
    expect(shareLinkIdSchema.safeParse({ id, extra: 1 }).success).toBe(false);
  });
});

describe("listShareLinksQuerySchema", () => {
  it("takes all, or one resource: an experiment or run by id, the protocol matrix without one", () => {
    expect(listShareLinksQuerySchema.parse({})).toEqual({ all: false });
    expect(listShareLinksQuerySchema.parse({ all: "true" })).toEqual({ all: true });
    expect(listShareLinksQuerySchema.parse({ resourceType: "experiment", resourceId: id })).toEqual({
      all: false,
      resourceType: "experiment",
      resourceId: id,
    });
    expect(listShareLinksQuerySchema.parse({ resourceType: "protocol_matrix" })).toEqual({ all: false, resourceType: "protocol_matrix" });
  });

  it.each([
    [{ resourceType: "experiment" }, "resourceId", "resourceId is required to list the links of an experiment"],
    [{ resourceType: "run", resourceId: "42" }, "resourceId", "resourceId must be an experiment, run, evaluation or protocol id (a UUID)"],
    [{ resourceType: "protocol_matrix", resourceId: id }, "resourceId", "resourceId must be left out for the protocol matrix"],
    [{ resourceId: id }, "resourceType", "resourceType is required with resourceId"],
    [{ resourceType: "dashboard", resourceId: id }, "resourceType", undefined],
    [{ all: "yes" }, "all", undefined],
    [{ resourceType: ["run", "experiment"], resourceId: id }, "resourceType", undefined],
    [{ createdBy: "me" }, "createdBy", undefined],
  ])("refuses %j, naming %s", (query, field, message) => {
    try {
      parseInput(listShareLinksQuerySchema, query, "query");
      expect.unreachable("parsed");
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).field).toBe(field);
      if (message) expect((error as DomainError).message).toBe(`query.${field}: ${message}`);
    }
  });
});
