import { describe, expect, it } from "vitest";
import { classifyRun } from "./classification";

const clean = { environmentFailure: false, agentError: false, budgetReached: false, evidenceComplete: true };

describe("classifyRun", () => {
  it("is completed when nothing went wrong", () => {
    expect(classifyRun(clean)).toBe("completed");
  });
  it("puts environment failures apart from agent results, first", () => {
    expect(classifyRun({ ...clean, environmentFailure: true, agentError: true })).toBe("environment_failure");
  });
  it("classifies agent failures, protocol stops and missing evidence", () => {
    expect(classifyRun({ ...clean, agentError: true })).toBe("agent_failure");
    expect(classifyRun({ ...clean, budgetReached: true })).toBe("protocol_stop");
    expect(classifyRun({ ...clean, evidenceComplete: false })).toBe("missing_evidence");
  });
});
