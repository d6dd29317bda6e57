import { describe, expect, it } from "vitest";
import { isExperimentId } from "./experiment-id";

describe("isExperimentId", () => {
  it("accepts a canonical uuid in either case", () => {
    expect(isExperimentId("0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6f")).toBe(true);
    expect(isExperimentId("0B7F3C1E-9D2A-4C4E-8F5B-1A2B3C4D5E6F")).toBe(true);
  });
  it("rejects anything else, including forms PostgreSQL would still parse", () => {
    for (const raw of [
      "",
      "1",
      "not-a-uuid",
      "0b7f3c1e9d2a4c4e8f5b1a2b3c4d5e6f",
      "{0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6f}",
      "0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6",
      "0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6g",
      "0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6f' OR 1=1",
    ]) {
      expect(isExperimentId(raw), raw).toBe(false);
    }
  });
});
