import { describe, expect, it } from "vitest";
import { spanTimeline, type StoredSpan } from "./span-timeline";

const span = (spanId: string, parentSpanId: string | null, startMs: number, endMs: number, name = spanId): StoredSpan => ({
  spanId,
  parentSpanId,
  name,
  startMs,
  endMs,
  statusCode: 0,
  tool: null,
});

describe("spanTimeline", () => {
  it("puts each span under its parent, siblings by start, placed within the trace's extent", () => {
    const rows = spanTimeline(
      [
        span("tool-2", "root", 600, 1_000),
        span("root", null, 0, 1_000),
        span("tool-1", "root", 100, 300),
        span("check", "root", 5_000, 5_100),
      ],
      0,
    );
    expect(rows.map((r) => [r.spanId, r.depth, r.offsetMs, r.durationMs])).toEqual([
      ["root", 0, 0, 1_000],
      ["tool-1", 1, 100, 200],
      ["tool-2", 1, 600, 400],
      ["check", 1, 5_000, 100],
    ]);
    expect(rows[0]).toMatchObject({ leftPercent: 0, widthPercent: (1_000 / 5_100) * 100 });
    expect(rows[3]!.leftPercent).toBeCloseTo((5_000 / 5_100) * 100);
  });

  it("starts a tree of its own for a span whose parent was never received, and answers nothing for no spans", () => {
    expect(spanTimeline([span("orphan", "missing", 10, 20), span("root", null, 0, 30)], 0).map((r) => [r.spanId, r.depth])).toEqual([
      ["root", 0],
      ["orphan", 0],
    ]);
    expect(spanTimeline([], 0)).toEqual([]);
  });
});
