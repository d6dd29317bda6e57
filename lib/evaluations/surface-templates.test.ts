import { describe, expect, it } from "vitest";
import { callSurfacer } from "./policy";
import { effectPolicySchema } from "./effect-policy-schema";
import { callSurfaceText, parseSurfaceTemplate, renderSurfaceTemplate, SURFACE_MAX, templateParts } from "./surface-templates";

describe("a surface template", () => {
  it("parses into text and the arguments it names, in order", () => {
    expect(parseSurfaceTemplate("fs:{path}")).toEqual({ parts: [{ text: "fs:" }, { argument: "path" }] });
    expect(parseSurfaceTemplate("{account}/{id}")).toEqual({ parts: [{ argument: "account" }, { text: "/" }, { argument: "id" }] });
    expect(parseSurfaceTemplate("db:ledger")).toEqual({ parts: [{ text: "db:ledger" }] });
    expect(parseSurfaceTemplate("{a b}")).toEqual({ parts: [{ argument: "a b" }] });
  });

  it("is refused, saying where, when its braces do not pair or a name is blank", () => {
    expect(parseSurfaceTemplate("fs:{path")).toEqual({ problem: "the { at position 4 is never closed" });
    expect(parseSurfaceTemplate("fs:path}")).toEqual({ problem: "the } at position 8 closes no {" });
    expect(parseSurfaceTemplate("fs:{}")).toEqual({ problem: "the {} at position 4 names no argument" });
    expect(parseSurfaceTemplate("fs:{ }")).toEqual({ problem: "the {} at position 4 names no argument" });
    expect(parseSurfaceTemplate("{a{b}}")).toEqual({ problem: "the { at position 3 opens a name inside the one opened at position 1" });
  });

  it("renders a call's top-level scalar arguments: text as it is, numbers and booleans as their JSON text", () => {
    const parts = templateParts("acct:{account}/{id}/{open}");
    expect(renderSurfaceTemplate(parts, { account: "alice", id: 42, open: true })).toEqual({ surface: "acct:alice/42/true" });
    expect(renderSurfaceTemplate(parts, { account: "", id: 1.5, open: false, other: { x: 1 } })).toEqual({ surface: "acct:/1.5/false" });
    expect(renderSurfaceTemplate(templateParts("db:ledger"), undefined)).toEqual({ surface: "db:ledger" });
  });

  it("makes no surface from a call without the argument, or with an object, array or null in it", () => {
    const parts = templateParts("fs:{path}");
    expect(renderSurfaceTemplate(parts, undefined)).toEqual({ reason: "absent", argument: "path" });
    expect(renderSurfaceTemplate(parts, { file: "a.txt" })).toEqual({ reason: "absent", argument: "path" });
    expect(renderSurfaceTemplate(parts, { path: ["a.txt"] })).toEqual({ reason: "not_scalar", argument: "path" });
    expect(renderSurfaceTemplate(parts, { path: { dir: "a" } })).toEqual({ reason: "not_scalar", argument: "path" });
    expect(renderSurfaceTemplate(parts, { path: null })).toEqual({ reason: "not_scalar", argument: "path" });
    // An inherited property is no argument.
    expect(renderSurfaceTemplate(templateParts("{toString}"), {})).toEqual({ reason: "absent", argument: "toString" });
  });

  it("makes no surface longer than a surface may be", () => {
    const long = "x".repeat(SURFACE_MAX);
    expect(renderSurfaceTemplate(templateParts("{path}"), { path: long })).toEqual({ surface: long });
    expect(renderSurfaceTemplate(templateParts("fs:{path}"), { path: long })).toEqual({ reason: "too_long", length: SURFACE_MAX + 3 });
  });

  it("says in the run page's words what a call touched, or why nothing", () => {
    expect(callSurfaceText("write_file", { op: "write", template: "fs:{path}", rendered: { reason: "absent", argument: "path" } })).toBe(
      "write_file's writes template fs:{path} needs argument path; this call has none",
    );
    expect(callSurfaceText("read_text_file", { op: "read", template: "fs:{path}", rendered: { surface: "fs:a.txt" } })).toBe(
      "reads fs:a.txt (read_text_file's template fs:{path})",
    );
  });
});

describe("a policy entry with templates", () => {
  const policy = effectPolicySchema.parse({
    tools: {
      write_file: { class: "sync_confirmed", writes: "fs:{path}" },
      read_text_file: { class: "read_only", reads: "fs:{path}" },
      "move_*": { class: "sync_confirmed", reads: "fs:{source}", writes: "fs:{destination}" },
      get_balance: "read_only",
    },
  });

  it("gives each call the surfaces its tool's templates make of its arguments, patterns included", () => {
    const surfaces = callSurfacer(policy);
    expect(surfaces("write_file", { path: "a.txt", content: "balance=100" })).toEqual([
      { op: "write", template: "fs:{path}", rendered: { surface: "fs:a.txt" } },
    ]);
    expect(surfaces("move_file", { source: "a.txt", destination: "b.txt" })).toEqual([
      { op: "read", template: "fs:{source}", rendered: { surface: "fs:a.txt" } },
      { op: "write", template: "fs:{destination}", rendered: { surface: "fs:b.txt" } },
    ]);
    expect(surfaces("read_text_file", {})).toEqual([
      { op: "read", template: "fs:{path}", rendered: { reason: "absent", argument: "path" } },
    ]);
    expect(surfaces("get_balance", { account: "a" })).toEqual([]);
    expect(surfaces("unknown_tool", { path: "a.txt" })).toEqual([]);
  });

  it("is refused naming the template's field, with why", () => {
    const refused = effectPolicySchema.safeParse({ tools: { write_file: { class: "sync_confirmed", writes: "fs:{path" } } });
    expect(refused.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["tools.write_file.writes", "a surface template's braces must pair around an argument's name: the { at position 4 is never closed"],
    ]);
    const blank = effectPolicySchema.safeParse({ tools: { "fs.*": { class: "read_only", reads: "{}" } } });
    expect(blank.error?.issues.map((i) => i.path.join("."))).toEqual(["tools.fs.*.reads"]);
  });

  it("is refused naming the class's field, or the unknown key, and a bad bare class still names the entry", () => {
    const refusals = (tools: unknown) => effectPolicySchema.safeParse({ tools }).error?.issues.map((i) => [i.path.join("."), i.code]);
    expect(refusals({ a: { class: "writes", writes: "x" } })).toEqual([["tools.a.class", "invalid_value"]]);
    expect(refusals({ a: { writes: "x" } })).toEqual([["tools.a.class", "invalid_value"]]);
    expect(refusals({ a: { class: "read_only", surface: "x" } })).toEqual([["tools.a", "unrecognized_keys"]]);
    expect(refusals({ a: "maybe" })).toEqual([["tools.a", "invalid_value"]]);
    expect(refusals({ a: ["read_only"] })).toEqual([["tools.a", "invalid_value"]]);
  });
});
