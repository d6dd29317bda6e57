import { describe, expect, it } from "vitest";
import { addImportReports, emptyImportReport } from "./report";

describe("import reports added up", () => {
  it("adds counts, joins lists, and adds an evaluation's runs under its id and a pair's runs held elsewhere", () => {
    const a = {
      files: 2,
      imported: 1,
      unchanged: 0,
      skipped: [{ file: "a.txt", reason: "not JSON" }],
      failed: [],
      incomplete: [],
      unlabelled: [{ file: "a.json", scorer: "rubric", runs: 3, readable: ["match"] }],
      runs: 3,
      evaluations: [{ id: "e1", name: "one", runs: 3 }],
      policyVersions: [{ evaluation: "one", version: 2, adopted: { send_money: "async_handle" as const } }],
      elsewhere: [{ evaluationId: "e1", evaluation: "one", alsoInId: "e9", alsoIn: "nine", runs: 2 }],
    };
    const b = {
      files: 2,
      imported: 1,
      unchanged: 1,
      skipped: [],
      failed: [{ file: "b.json", error: "bug" }],
      incomplete: [{ file: "b.eval", expected: 100, found: 99, missing: ["17 epoch 1"] }],
      unlabelled: [],
      runs: 5,
      evaluations: [
        { id: "e1", name: "one", runs: 1 },
        { id: "e2", name: "two", runs: 4 },
      ],
      policyVersions: [],
      elsewhere: [
        { evaluationId: "e1", evaluation: "one", alsoInId: "e9", alsoIn: "nine", runs: 1 },
        { evaluationId: "e2", evaluation: "two", alsoInId: "e1", alsoIn: "one", runs: 4 },
      ],
    };
    expect(addImportReports(addImportReports(emptyImportReport(), a), b)).toEqual({
      files: 4,
      imported: 2,
      unchanged: 1,
      skipped: [{ file: "a.txt", reason: "not JSON" }],
      failed: [{ file: "b.json", error: "bug" }],
      incomplete: [{ file: "b.eval", expected: 100, found: 99, missing: ["17 epoch 1"] }],
      unlabelled: [{ file: "a.json", scorer: "rubric", runs: 3, readable: ["match"] }],
      runs: 8,
      evaluations: [
        { id: "e1", name: "one", runs: 4 },
        { id: "e2", name: "two", runs: 4 },
      ],
      policyVersions: [{ evaluation: "one", version: 2, adopted: { send_money: "async_handle" } }],
      elsewhere: [
        { evaluationId: "e1", evaluation: "one", alsoInId: "e9", alsoIn: "nine", runs: 3 },
        { evaluationId: "e2", evaluation: "two", alsoInId: "e1", alsoIn: "one", runs: 4 },
      ],
    });
    expect(a.evaluations[0]!.runs).toBe(3); // the inputs are left as they were
    expect(a.elsewhere[0]!.runs).toBe(2);
  });
});
