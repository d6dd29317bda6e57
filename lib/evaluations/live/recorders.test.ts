import { describe, expect, it } from "vitest";
import { RECORDER_SILENT_AFTER_MS, recorderFlags } from "./recorders";
import type { LiveRunRecorder } from "./live-run-schemas";

const T = Date.parse("2026-12-07T10:00:00.000Z");
const iso = (ms: number) => new Date(T + ms).toISOString();
const recorder = (over: Partial<LiveRunRecorder>): LiveRunRecorder => ({
  recorderId: "rec-1",
  kind: "mcp stdio",
  startedAt: iso(0),
  lastSeenAt: iso(5_000),
  flushedThrough: iso(5_000),
  stoppedAt: null,
  ...over,
});

describe("recorderFlags", () => {
  const scoredAt = new Date(T + 5_000);
  it("flags nothing for a recorder that had delivered everything up to the score, stopped after it or not", () => {
    expect(recorderFlags([recorder({})], scoredAt)).toEqual([]);
    expect(recorderFlags([recorder({ stoppedAt: iso(9_000), flushedThrough: iso(9_000) })], scoredAt)).toEqual([]);
    expect(recorderFlags([recorder({})], null)).toEqual([]);
  });

  it("flags one that stopped, or went silent, before the score, and one that had not delivered what it saw up to it", () => {
    expect(recorderFlags([recorder({ stoppedAt: iso(4_000), flushedThrough: iso(4_000) })], scoredAt)).toEqual([
      { recorderId: "rec-1", kind: "mcp stdio", problem: "stopped_before_score" },
    ]);
    const silentSince = T + 5_000 - RECORDER_SILENT_AFTER_MS - 1;
    expect(recorderFlags([recorder({ lastSeenAt: new Date(silentSince).toISOString(), flushedThrough: iso(0) })], scoredAt)).toEqual([
      { recorderId: "rec-1", kind: "mcp stdio", problem: "silent_before_score" },
    ]);
    expect(
      recorderFlags([recorder({ flushedThrough: iso(4_999) }), recorder({ recorderId: "rec-2", flushedThrough: null })], scoredAt),
    ).toEqual([
      { recorderId: "rec-1", kind: "mcp stdio", problem: "not_flushed_at_score" },
      { recorderId: "rec-2", kind: "mcp stdio", problem: "not_flushed_at_score" },
    ]);
  });
});
