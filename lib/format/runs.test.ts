import { describe, expect, it } from "vitest";
import { conditionLabel, describeRun, formatServiceMs, shortId } from "./runs";

describe("format", () => {
  it("names policies and conditions as Table 2 does, and an unknown one as stored", () => {
    expect(conditionLabel("verified_cancellation")).toBe("verified cancellation");
    expect(conditionLabel("sync_snapshot")).toBe("synchronous control: snapshot");
    expect(conditionLabel("b_before_a")).toBe("B before A");
    expect(conditionLabel("future_policy")).toBe("future_policy");
  });

  it("describes a run by its grid cell, naming A or B of a pair", () => {
    expect(describeRun({ condition: "snapshot", delayMs: 25, scheduleId: 1, repetition: 2, role: "single" })).toBe(
      "snapshot, 25 ms, schedule 1, repetition 2",
    );
    expect(describeRun({ condition: "shared", delayMs: 0, scheduleId: 3, repetition: 1, role: "B" })).toBe(
      "shared state, 0 ms, schedule 3, repetition 1, run B",
    );
  });

  it("shortens ids and shows service times to the microsecond", () => {
    expect(shortId("0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6f")).toBe("0b7f3c1e");
    expect(formatServiceMs(1025.4)).toBe("1025.400");
    expect(formatServiceMs(null)).toBe("none");
  });
});
