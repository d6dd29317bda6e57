import { describe, expect, it } from "vitest";
import { ruleControlError } from "./exclusion-rule-fields";

describe("ruleControlError", () => {
  it("names the control the API's field points at, with its label in place of the field path", () => {
    expect(ruleControlError("rule.threshold", "body.rule.threshold: threshold must be between 0 and 1", "rule")).toEqual({
      key: "rule.threshold",
      message: "Target for the headline rate: threshold must be between 0 and 1",
    });
    expect(ruleControlError("rule.classes.completed", "body.rule.classes.completed: classes.completed must be keep", "rule")).toEqual({
      key: "rule.classes.completed",
      message: "completed runs: classes.completed must be keep",
    });
    expect(ruleControlError("exclusionRule.unresolved", "exclusionRule.unresolved: must be one of …", "exclusionRule")).toEqual({
      key: "exclusionRule.unresolved",
      message: "Unresolved runs: must be one of …",
    });
    expect(ruleControlError("rule.eligiblePopulation", "too long", "rule")).toEqual({
      key: "rule.eligiblePopulation",
      message: "Eligible population: too long",
    });
  });

  it("leaves the rule as a whole, paths that are no control and other fields to the form", () => {
    expect(ruleControlError("rule", "body.rule: rule must be an object", "rule")).toBeNull();
    expect(ruleControlError("rule.classes", "body.rule.classes: unknown key", "rule")).toBeNull();
    expect(ruleControlError("rule.toString", "x", "rule")).toBeNull();
    expect(ruleControlError("reason", "body.reason: reason must not be empty", "rule")).toBeNull();
    expect(ruleControlError("rules.threshold", "x", "rule")).toBeNull();
    expect(ruleControlError(undefined, "the server could not be reached", "rule")).toBeNull();
  });
});
