import { describe, expect, it } from "vitest";
import { effectShowsAWrite, readOnlyRowsHidingWrites } from "./read-only-warning";

describe("effectShowsAWrite", () => {
  it("takes a surface, a handle or an operation pending at scoring as a write", () => {
    expect(effectShowsAWrite({ surface: "db:orders/42", handle: null, statusAtScoring: "completed" })).toBe(true);
    expect(effectShowsAWrite({ surface: null, handle: "op-7", statusAtScoring: "completed" })).toBe(true);
    expect(effectShowsAWrite({ surface: null, handle: null, statusAtScoring: "pending" })).toBe(true);
  });

  it("does not take a call that returned, failed, never ran or left no status as one: importers record reads so too", () => {
    for (const statusAtScoring of ["completed", "failed", "not_executed", "unknown", "cancelled"])
      expect(effectShowsAWrite({ surface: null, handle: null, statusAtScoring })).toBe(false);
  });
});

describe("readOnlyRowsHidingWrites", () => {
  const rows = [
    { tool: "read_file", effectClass: "read_only" as const },
    { tool: "get_*", effectClass: "read_only" as const },
    { tool: "send_money", effectClass: "async_handle" as const },
    { tool: " ", effectClass: "read_only" as const },
  ];

  it("warns about a tool a read-only row names or matches only when its effects show writes", () => {
    expect(readOnlyRowsHidingWrites(rows, { read_file: 0, get_balance: 3, send_money: 5, list_files: 2 })).toEqual([
      { tool: "get_balance", writes: 3 },
    ]);
  });

  it("warns about nothing for rightly read-only tools, whatever they recorded otherwise", () => {
    expect(readOnlyRowsHidingWrites(rows, { read_file: 0, get_balance: 0 })).toEqual([]);
    expect(readOnlyRowsHidingWrites([], { get_balance: 3 })).toEqual([]);
  });
});
