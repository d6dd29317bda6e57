import { describe, expect, it } from "vitest";
import { classifyTool } from "./policy";

describe("effect policy", () => {
  const policy = { tools: { "bank.transfer": "async_handle", "bank.*": "read_only", "bank.transfer.*": "external", "*.send": "external" } } as const;
  it("prefers the exact name, then the longest matching pattern, and leaves the rest unclassified", () => {
    expect(classifyTool(policy, "bank.transfer")).toBe("async_handle");
    expect(classifyTool(policy, "bank.balance")).toBe("read_only");
    expect(classifyTool(policy, "bank.transfer.batch")).toBe("external");
    expect(classifyTool(policy, "mail.send")).toBe("external");
    expect(classifyTool(policy, "shell.exec")).toBe("unclassified");
    expect(classifyTool({ tools: {} }, "anything")).toBe("unclassified");
  });
  it("treats pattern characters other than * literally", () => {
    expect(classifyTool({ tools: { "a.b": "read_only" } } as const, "aXb")).toBe("unclassified");
    expect(classifyTool({ tools: { "a.(b)*": "external" } } as const, "a.(b)c")).toBe("external");
    expect(classifyTool({ tools: { constructor: "read_only" } } as const, "toString")).toBe("unclassified");
  });
});
