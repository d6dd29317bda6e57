import { describe, expect, it } from "vitest";
import { hashShareToken, newShareToken, shareTokenSchema } from "./token";

describe("share tokens", () => {
  it("are 43 base64url characters of 32 random bytes, all distinct", () => {
    const tokens = Array.from({ length: 200 }, newShareToken);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, "base64url")).toHaveLength(32);
      expect(shareTokenSchema.safeParse(token).success).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("hash to the SHA-256 hex of the token", () => {
    // SHA-256("abc"), FIPS 180-2 test vector.
    expect(hashShareToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const token = newShareToken();
    expect(hashShareToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashShareToken(token)).not.toBe(hashShareToken(`${token.slice(0, -1)}${token.endsWith("A") ? "E" : "A"}`));
  });

  it("refuse anything newShareToken cannot make", () => {
    const token = newShareToken();
    const malformed = [
      "",
      token.slice(1), // 42 characters
      `${token}A`, // 44 characters
      `${token.slice(0, 42)}=`, // padding
      `${token.slice(0, 10)}+${token.slice(11)}`, // base64, not base64url
      `${token.slice(0, 10)}/${token.slice(11)}`,
      `${token.slice(0, 10)} ${token.slice(11)}`,
      `${token.slice(0, 42)}B`, // last character with bits 32 bytes cannot have
      ` ${token}`,
      `${token}\n`,
    ];
    for (const candidate of malformed) expect(shareTokenSchema.safeParse(candidate).success, JSON.stringify(candidate)).toBe(false);
    expect(shareTokenSchema.safeParse(42).success).toBe(false);
  });
});
