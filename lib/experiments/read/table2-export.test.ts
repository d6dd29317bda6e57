import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "../../replay/rules/config";
import { expectedTable2 } from "../../replay/rules/expected-table2";
import { table2Records } from "./table2-export";

describe("table2Records", () => {
  const counts = expectedTable2(replayConfigSchema.parse({}));

  it("gives every policy and condition its count pairs", () => {
    const records = table2Records(counts);
    expect(records).toHaveLength(6 * 4 + 6 * 3);
    expect(records.find((r) => r.condition === "snapshot" && r.measure === "recorded_successes_nonzero_delay")).toEqual({
      test: "finality",
      condition: "snapshot",
      measure: "recorded_successes_nonzero_delay",
      numerator: 0,
      denominator: 150,
      value: 0,
      // Wilson at 0/150: [0, z²/(150 + z²)] = [0, 3.841459/153.841459] = [0, 0.024970]
      wilson95_lower: 0,
      wilson95_upper: expect.closeTo(0.02497, 5),
    });
    // 150/200: Wilson [0.68566, 0.80492] (docs/statistics.md)
    expect(records.find((r) => r.condition === "shared" && r.measure === "exposures_per_pair")).toMatchObject({
      numerator: 150,
      denominator: 200,
      value: 0.75,
      wilson95_lower: expect.closeTo(0.68566, 4),
      wilson95_upper: expect.closeTo(0.80492, 4),
    });
    expect(records.find((r) => r.condition === "grouped" && r.measure === "analysis_units_per_run_row")).toMatchObject({
      numerator: 200,
      denominator: 400,
      wilson95_lower: null,
      wilson95_upper: null,
    });
    expect(records.find((r) => r.condition === "shared" && r.measure === "mean_score_b")).toMatchObject({
      numerator: null,
      denominator: null,
      value: 0.25,
      wilson95_lower: null,
      wilson95_upper: null,
    });
  });

  it("a zero denominator gives no value rather than a division by zero", () => {
    const empty = {
      finality: [{ ...counts.finality[0]!, trialsNonzeroDelay: 0, successesNonzeroDelay: 0, disagreementsNonzeroDelay: 0 }],
      separation: [],
    };
    expect(table2Records(empty)[1]).toMatchObject({
      numerator: 0,
      denominator: 0,
      value: null,
      wilson95_lower: null,
      wilson95_upper: null,
    });
  });
});
