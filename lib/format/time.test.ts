import { describe, expect, it } from "vitest";
import { formatDuration, formatLocal, formatRelative, formatSinceStart, formatUtc, formatUtcShort, formatElapsed, isoTime } from "./time";
import { seededRandom } from "../testing/seeded-random";

describe("time", () => {
  it("writes UTC exactly, and local time in the zone asked for", () => {
    expect(formatUtc("2026-11-30T14:03:22.512Z")).toBe("2026-11-30 14:03:22");
    expect(formatLocal("2026-11-30T14:03:22.512Z", "Europe/Berlin")).toBe("30 Nov 2026, 15:03");
    expect(formatLocal("2026-12-06T22:52:34Z", "America/New_York")).toBe("6 Dec 2026, 17:52");
    expect(formatLocal("2026-12-06T00:05:00Z", "Asia/Tokyo")).toBe("6 Dec 2026, 09:05");
    // The server's rendering: the same shape in UTC, saying so.
    expect(formatUtcShort("2026-12-06T22:52:34Z")).toBe("6 Dec 2026, 22:52 UTC");
  });

  it("says how long ago, in the largest whole unit", () => {
    const now = Date.parse("2026-11-30T14:00:00Z");
    expect(formatRelative("2026-11-30T13:59:55Z", now)).toBe("just now");
    expect(formatRelative("2026-11-30T13:57:00Z", now)).toBe("3 min. ago");
    expect(formatRelative("2026-11-30T11:00:00Z", now)).toBe("3 hr. ago");
    expect(formatRelative("2026-11-28T14:00:00Z", now)).toBe("2 days ago");
    expect(formatRelative("2026-12-02T14:00:00Z", now)).toBe("in 2 days");
  });

  it("writes durations in ms or s as fits", () => {
    expect(formatDuration(0.4213)).toBe("0.42 ms");
    expect(formatDuration(25.41)).toBe("25.4 ms");
    expect(formatDuration(812.3)).toBe("812 ms");
    expect(formatDuration(1250)).toBe("1.25 s");
    expect(formatDuration(42_000)).toBe("42.0 s");
    expect(formatDuration(200_000)).toBe("3 min 20 s");
    expect(formatDuration(7_500_000)).toBe("2 h 5 min");
    expect(formatSinceStart(1025.4, 1000)).toBe("+25.4 ms after the run's start");
    expect(formatSinceStart(null, 1000)).toBe("none");
  });
  it("writes an offset from a run's start at an agent's scale, never a thousand milliseconds with three decimals", () => {
    expect(formatElapsed(0)).toBe("+0 ms");
    expect(formatElapsed(812)).toBe("+812 ms");
    expect(formatElapsed(4188)).toBe("+4.19 s");
    expect(formatElapsed(200_000)).toBe("+3 min 20 s");
    expect(formatElapsed(-1500)).toBe("−1.50 s");
  });

  it("writes an instant as toISOString does, at every year's edges and at random", () => {
    const edges = ["0000-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z"];
    edges.push("2000-02-29T12:00:00.001Z", "2100-02-28T23:59:59.999Z", "2100-03-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z");
    for (const iso of edges) expect(isoTime(Date.parse(iso))).toBe(iso);
    const random = seededRandom(7);
    const [first, last] = [Date.parse("0000-01-01T00:00:00.000Z"), Date.parse("9999-12-31T23:59:59.999Z")];
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(first + random() * (last - first));
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
    // Outside four-digit years, and between milliseconds: toISOString itself.
    expect(isoTime(Date.parse("+010000-01-01T00:00:00.000Z"))).toBe("+010000-01-01T00:00:00.000Z");
    expect(isoTime(0.5)).toBe(new Date(0.5).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
