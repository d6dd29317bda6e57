import { describe, expect, it } from "vitest";
import { shareRefusal } from "./refusal";

describe("shareRefusal", () => {
  it("gives each refusal its status, code and a message naming the time", () => {
    const at = "2026-11-29T12:00:00.000Z";
    expect(shareRefusal({ status: "invalid" })).toMatchObject({ httpStatus: 404, code: "link_invalid" });
    expect(shareRefusal({ status: "expired", expiredAt: at })).toMatchObject({
      httpStatus: 410,
      code: "link_expired",
      message: expect.stringContaining("2026-11-29T12:00:00.000Z"),
    });
    expect(shareRefusal({ status: "revoked", revokedAt: at })).toMatchObject({
      httpStatus: 410,
      code: "link_revoked",
      title: "Link revoked",
      message: expect.stringContaining("2026-11-29T12:00:00.000Z"),
    });
    expect(shareRefusal({ status: "gone" })).toMatchObject({ httpStatus: 410, code: "resource_gone" });
    expect(shareRefusal({ status: "disabled" })).toMatchObject({ httpStatus: 403, code: "links_disabled" });
    expect(shareRefusal({ status: "rate_limited", retryAfterSeconds: 42 })).toMatchObject({
      httpStatus: 429,
      message: expect.stringContaining("42 s"),
    });
  });
});
