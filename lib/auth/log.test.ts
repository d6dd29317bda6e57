import { describe, expect, it } from "vitest";
import { APIError } from "better-auth/api";
import { isRefusedApiKey } from "./log";

describe("isRefusedApiKey", () => {
  it("drops the plugin's log of a refused key, and nothing else", () => {
    const refused = new APIError("UNAUTHORIZED", { message: "Invalid API key.", code: "INVALID_API_KEY" });
    expect(isRefusedApiKey("Failed to validate API key:", [refused])).toBe(true);
    expect(isRefusedApiKey("Failed to validate API key:", [new Error("connection refused")])).toBe(false);
    expect(isRefusedApiKey("Failed to validate API key:", [new APIError("INTERNAL_SERVER_ERROR")])).toBe(false);
    expect(isRefusedApiKey("Invalid origin: https://evil.example", [])).toBe(false);
  });
});
