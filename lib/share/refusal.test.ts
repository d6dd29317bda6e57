import { describe, expect, it } from "vitest";
import { shareRefusal } from "./refusal";

describe("shareRefusal", () => {
  it("gives each refusal its kind, code and a message naming the time", () => {
    const at = "2026-11-29T12:00:00.000Z";
    expect(shareRefusal({ status: "invalid" })).toMatchObject({ kind: "not_found", code: "link_invalid" });
    expect(shareRefusal({ status: "expired", expiredAt: at })).toMatchObject({
      kind: "gone",
      code: "link_expired",
      message: expect.stringContaining("2026-11-29T12:00:00.000Z"),
    });
    expect(shareRefusal({ status: "revoked", revokedAt: at })).toMatchObject({
      kind: "gone",
      code: "link_revoked",
      title: "Link revoked",
      message: expect.stringContaining("2026-11-29T12:00:00.000Z"),
    });
    expect(shareRefusal({ status: "gone" })).toMatchObject({ kind: "gone", code: "resource_gone" });
    expect(shareRefusal({ status: "disabled" })).toMatchObject({ kind: "forbidden", code: "links_disabled" });
    expect(shareRefusal({ status: "rate_limited", retryAfterSeconds: 42 })).toMatchObject({
      kind: "rate_limited",
      message: expect.stringContaining("42 s"),
    });
  });
});
