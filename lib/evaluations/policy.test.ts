import { describe, expect, it } from "vitest";
import { classesToAdopt, classifyTool, globMatches, samePolicy } from "./policy";

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

describe("classesToAdopt", () => {
  const importer = {
    tools: { send_money: "async_handle", get_balance: "read_only", "calendar.*": "sync_confirmed", update_password: "external" },
  } as const;
  it("adopts every class an empty policy leaves unclassified", () => {
    expect(classesToAdopt({ tools: {} }, importer)).toEqual(importer.tools);
  });
  it("keeps the evaluation's class of a tool it names or matches by a pattern, and adopts the rest", () => {
    expect(classesToAdopt({ tools: { send_money: "external", "update_*": "read_only" } }, importer)).toEqual({
      get_balance: "read_only",
      "calendar.*": "sync_confirmed",
    });
  });
  it("adopts nothing the policy already holds", () => {
    expect(classesToAdopt(importer, importer)).toEqual({});
  });
});

describe("samePolicy", () => {
  it("compares names and classes, not their order", () => {
    expect(samePolicy({ tools: { a: "read_only", b: "external" } }, { tools: { b: "external", a: "read_only" } })).toBe(true);
    expect(samePolicy({ tools: { a: "read_only" } }, { tools: { a: "external" } })).toBe(false);
    expect(samePolicy({ tools: { a: "read_only" } }, { tools: { a: "read_only", b: "external" } })).toBe(false);
    expect(samePolicy({ tools: {} }, { tools: {} })).toBe(true);
  });
});
