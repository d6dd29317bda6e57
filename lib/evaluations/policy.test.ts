import { describe, expect, it } from "vitest";
import { classesToAdopt, classifyTool, describeEntry, globMatches, samePolicy, sameTemplates } from "./policy";
import type { EffectPolicy } from "./effect-policy-schema";

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
  it("reads an object entry's class as a string entry's, exact names and patterns alike", () => {
    const templated: EffectPolicy = {
      tools: { write_file: { class: "sync_confirmed", writes: "fs:{path}" }, "read_*": { class: "read_only", reads: "fs:{path}" } },
    };
    expect(classifyTool(templated, "write_file")).toBe("sync_confirmed");
    expect(classifyTool(templated, "read_text_file")).toBe("read_only");
    expect(classifyTool(templated, "edit_file")).toBe("unclassified");
    expect(describeEntry(templated.tools.write_file!)).toBe("sync_confirmed, writes fs:{path}");
    expect(describeEntry("external")).toBe("external");
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
  it("compares templates too; an object without templates is its class", () => {
    const writes: EffectPolicy = { tools: { w: { class: "sync_confirmed", writes: "fs:{path}" } } };
    expect(samePolicy(writes, { tools: { w: { writes: "fs:{path}", class: "sync_confirmed" } } })).toBe(true);
    expect(samePolicy(writes, { tools: { w: "sync_confirmed" } })).toBe(false);
    expect(samePolicy(writes, { tools: { w: { class: "sync_confirmed", writes: "fs:{file}" } } })).toBe(false);
    expect(samePolicy({ tools: { w: { class: "external" } } }, { tools: { w: "external" } })).toBe(true);
  });
});

describe("sameTemplates", () => {
  const templated: EffectPolicy = { tools: { w: { class: "sync_confirmed", writes: "fs:{path}" }, r: "read_only" } };
  it("holds across a change of classes alone, and between policies without templates", () => {
    expect(sameTemplates(templated, { tools: { w: { class: "external", writes: "fs:{path}" }, r: "external" } })).toBe(true);
    expect(sameTemplates({ tools: { a: "read_only" } }, { tools: { b: "external", "*": "read_only" } })).toBe(true);
  });
  it("fails when a template, or the names and patterns that decide which entry governs a tool, change", () => {
    expect(sameTemplates(templated, { tools: { w: "sync_confirmed", r: "read_only" } })).toBe(false);
    expect(sameTemplates(templated, { tools: { w: { class: "sync_confirmed", writes: "fs:{file}" }, r: "read_only" } })).toBe(false);
    expect(sameTemplates(templated, { ...templated, tools: { ...templated.tools, "w*": "external" } })).toBe(false);
  });
});
