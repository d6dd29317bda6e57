import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { useTestDatabase } from "../testing/use-test-database";
import { createEvaluation } from "./manage/create-evaluation";
import { listToolSuggestions, storeToolSuggestions } from "./tool-suggestions";

// Recorders' tool-class suggestions on a real PostgreSQL: stored per tool and source, replaced by a
// later suggestion from the same source, kept beside another source's, and refused for an unknown evaluation.
let db: Db;
useTestDatabase((database) => (db = database.db));

describe("tool suggestions", () => {
  it("keeps one suggestion per tool and source, the latest winning", async () => {
    const evaluationId = await createEvaluation(db, { name: "suggestions" }, null);
    const readOnly = { readOnlyHint: true, openWorldHint: false };
    await storeToolSuggestions(db, evaluationId, {
      source: "mcp:bank",
      tools: [
        { tool: "get_balance", suggestedClass: "read_only", reason: "readOnlyHint", annotations: readOnly },
        { tool: "send_money", suggestedClass: "sync_confirmed", reason: "no hint" },
      ],
    });
    expect(
      await storeToolSuggestions(db, evaluationId, {
        source: "mcp:bank",
        tools: [{ tool: "send_money", suggestedClass: "async_handle", reason: "answered with a task" }],
      }),
    ).toEqual({ stored: 1 });
    await storeToolSuggestions(db, evaluationId, {
      source: "mcp:other",
      tools: [{ tool: "send_money", suggestedClass: "external", reason: "openWorldHint" }],
    });
    const stored = await listToolSuggestions(db, evaluationId);
    expect(stored.map(({ updatedAt: _, ...s }) => s)).toEqual([
      { tool: "get_balance", source: "mcp:bank", suggestedClass: "read_only", reason: "readOnlyHint", annotations: readOnly },
      { tool: "send_money", source: "mcp:bank", suggestedClass: "async_handle", reason: "answered with a task" },
      { tool: "send_money", source: "mcp:other", suggestedClass: "external", reason: "openWorldHint" },
    ]);
  });

  it("refuses an unknown evaluation and stores nothing", async () => {
    await expect(
      storeToolSuggestions(db, "00000000-0000-4000-8000-000000000000", {
        source: "mcp:bank",
        tools: [{ tool: "x", suggestedClass: "read_only", reason: "r" }],
      }),
    ).rejects.toMatchObject({ kind: "not_found" });
  });
});
