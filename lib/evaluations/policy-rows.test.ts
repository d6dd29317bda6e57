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
      problems: [
        {
          row: 1,
          message: "row 1 has no tool name; enter a tool's name or a pattern with *, or remove the row",
          belowRow: "Row 1 has no tool name: enter a tool's name or a pattern with *, or remove the row.",
        },
      ],
    });
    expect(
      policyFromRows([
        { tool: "db.update", effectClass: "sync_confirmed" },
        { tool: "email.send", effectClass: "external" },
        { tool: "db.update ", effectClass: "read_only" },
      ]),
    ).toEqual({
      ok: false,
      message: "Effect policy: “db.update” appears twice (rows 1 and 3); keep one",
      problems: [
        {
          row: 3,
          message: "“db.update” appears twice (rows 1 and 3); keep one",
          belowRow: "Row 3 repeats “db.update” from row 1: keep one.",
        },
      ],
    });
  });

  it("flag every bad row at once, not only the first", () => {
    const made = policyFromRows([
      { tool: "", effectClass: "read_only" },
      { tool: "db.update", effectClass: "sync_confirmed" },
      { tool: "db.update", effectClass: "external" },
      { tool: "mail.send", effectClass: "sometimes" as never },
      { tool: " db.update", effectClass: "read_only" },
    ]);
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.message).toBe("Effect policy: 4 rows need attention (rows 1, 3, 4, 5); each says why below it");
    expect(made.problems.map((p) => p.belowRow)).toEqual([
      "Row 1 has no tool name: enter a tool's name or a pattern with *, or remove the row.",
      "Row 3 repeats “db.update” from row 2: keep one.",
      "Row 4's class must be one of read_only, sync_confirmed, async_handle, external.",
      "Row 5 repeats “db.update” from row 2: keep one.",
    ]);
  });

  it("make an object entry of a row with a template, its class alone of one without, and come back as rows", () => {
    const made = policyFromRows([
      { tool: "write_file", effectClass: "sync_confirmed", writes: " fs:{path} ", reads: " " },
      { tool: "read_text_file", effectClass: "read_only", reads: "fs:{path}" },
      { tool: "get_time", effectClass: "read_only", reads: "", writes: "" },
    ]);
    expect(made).toEqual({
      ok: true,
      policy: {
        tools: {
          write_file: { class: "sync_confirmed", writes: "fs:{path}" },
          read_text_file: { class: "read_only", reads: "fs:{path}" },
          get_time: "read_only",
        },
      },
    });
    expect(made.ok && policyRowsOf(made.policy)).toEqual([
      { tool: "write_file", effectClass: "sync_confirmed", writes: "fs:{path}" },
      { tool: "read_text_file", effectClass: "read_only", reads: "fs:{path}" },
      { tool: "get_time", effectClass: "read_only" },
    ]);
  });

  it("name a template the schema would refuse by its row", () => {
    const made = policyFromRows([{ tool: "write_file", effectClass: "sync_confirmed", writes: "fs:{path" }]);
    expect(made.ok === false && made.problems.map((p) => p.belowRow)).toEqual([
      "Row 1's writes template: the { at position 4 is never closed (write {name} around each argument's name).",
    ]);
  });

  it("make an empty policy from no rows: every tool unclassified", () => {
    expect(policyFromRows([])).toEqual({ ok: true, policy: { tools: {} } });
  });
});
