import { describe, expect, it } from "vitest";
import { classifyTool, globMatches } from "./policy";

describe("effect policy", () => {
  const policy = {
    tools: { "bank.transfer": "async_handle", "bank.*": "read_only", "bank.transfer.*": "external", "*.send": "external" },
  } as const;
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

  it("matches without backtracking: the pattern that froze the server, against a 10,000-character name", () => {
    // With the regular expression this took 13 s at 200 characters and grew exponentially with each `*a`.
    const pathological = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
    expect(globMatches(pathological, "a".repeat(10_000))).toBe(false);
    expect(globMatches(pathological, `${"a".repeat(10_000)}b`)).toBe(true);
    expect(classifyTool({ tools: { [pathological]: "external" } }, "a".repeat(10_000))).toBe("unclassified");
  });
  it("agrees with a regular expression on every pattern and name of up to 5 characters over a, b and *", () => {
    const words = (alphabet: string[], max: number): string[] => {
      const out = [""];
      for (let k = 0; k < out.length; k++) if (out[k]!.length < max) for (const c of alphabet) out.push(out[k]! + c);
      return out;
    };
    const names = words(["a", "b"], 5);
    let compared = 0;
    for (const pattern of words(["a", "b", "*"], 5)) {
      const reference = new RegExp(`^${pattern.split("*").join(".*")}$`);
      for (const name of names) {
        expect(globMatches(pattern, name), `${pattern} against ${name}`).toBe(reference.test(name));
        compared++;
      }
    }
    expect(compared).toBe(364 * 63);
  });
});
