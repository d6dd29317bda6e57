import { describe, expect, it } from "vitest";
import { policyFromRows, policyRowsOf } from "./policy-rows";

describe("the effect-policy editor's rows", () => {
  it("make the policy, names trimmed, and come back from it in order", () => {
    const made = policyFromRows([
      { tool: " bank.transfer ", effectClass: "async_handle" },
      { tool: "bank.*", effectClass: "external" },
    ]);
    expect(made).toEqual({ ok: true, policy: { tools: { "bank.transfer": "async_handle", "bank.*": "external" } } });
    expect(made.ok && policyRowsOf(made.policy)).toEqual([
      { tool: "bank.transfer", effectClass: "async_handle" },
      { tool: "bank.*", effectClass: "external" },
    ]);
  });

  it("name an empty tool name and a repeated one by their rows", () => {
    expect(policyFromRows([{ tool: "  ", effectClass: "read_only" }])).toEqual({
      ok: false,
      message: "Effect policy: row 1 has no tool name; enter a tool's name or a pattern with *, or remove the row",
    });
    expect(
      policyFromRows([
        { tool: "db.update", effectClass: "sync_confirmed" },
        { tool: "email.send", effectClass: "external" },
        { tool: "db.update ", effectClass: "read_only" },
      ]),
    ).toEqual({ ok: false, message: "Effect policy: “db.update” appears twice (rows 1 and 3); keep one" });
  });

  it("make an empty policy from no rows: every tool unclassified", () => {
    expect(policyFromRows([])).toEqual({ ok: true, policy: { tools: {} } });
  });
});
