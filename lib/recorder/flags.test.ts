import { describe, expect, it } from "vitest";
import { recorderFlagsSchema } from "./flags";

// `npm run mcp:record` flags: the two modes, and a refusal that names the flag.
const base = { evaluation: "7f1c1d2e-3b4a-4c5d-8e6f-9a0b1c2d3e4f", run: "A" };
const refusal = (flags: Record<string, unknown>) => {
  const parsed = recorderFlagsSchema.safeParse({ ...base, ...flags });
  return parsed.success ? null : parsed.error.issues[0]!.message;
};

describe("recorderFlagsSchema", () => {
  it("takes the stdio mode with no HTTP flags, and the Streamable HTTP mode with --listen and --upstream together", () => {
    expect(recorderFlagsSchema.parse(base)).toMatchObject({ run: "A", "poll-bound-seconds": 600, host: "127.0.0.1" });
    expect(recorderFlagsSchema.parse({ ...base, listen: "0", upstream: "http://localhost:8080/mcp" })).toMatchObject({
      listen: 0,
      upstream: "http://localhost:8080/mcp",
    });
  });

  it("refuses one HTTP flag without the other, a port out of range, and an upstream that is not http(s), naming the flag", () => {
    expect(refusal({ listen: "8080" })).toBe("--listen and --upstream go together (the Streamable HTTP mode)");
    expect(refusal({ upstream: "http://localhost:8080/mcp" })).toBe("--listen and --upstream go together (the Streamable HTTP mode)");
    expect(refusal({ listen: "70000", upstream: "http://localhost:8080/mcp" })).toMatch(/^--listen must be a port/);
    expect(refusal({ listen: "http", upstream: "http://localhost:8080/mcp" })).toMatch(/^--listen must be a port number/);
    expect(refusal({ listen: "8080", upstream: "ftp://example.com/mcp" })).toMatch(
      /^--upstream must be the MCP server's http\(s\) endpoint/,
    );
  });
});
