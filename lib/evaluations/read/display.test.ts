import { describe, expect, it } from "vitest";
import { finalBasisSentence, runBasisText, separationBasisSentence } from "./display";
import { HARNESS_DESIGNS } from "../harness-design";

const agentdojo = (runs: number) => [{ design: "agentdojo", ...HARNESS_DESIGNS.agentdojo, runs }];

describe("what the audit's figures rest on, in words", () => {
  it("names the harness's design and recorded evidence, even at 0", () => {
    expect(
      finalBasisSentence({ final: { successes: 300, n: 600 }, finalBasis: { harness_design: 600 }, harnessDesigns: agentdojo(600) }),
    ).toBe("600 final: 600 by AgentDojo's design, 0 by recorded evidence.");
    expect(
      finalBasisSentence({
        final: { successes: 1, n: 4 },
        finalBasis: { recorded_evidence: 2, policy_class: 1, no_effects: 1 },
        harnessDesigns: [],
      }),
    ).toBe(
      "4 final: 2 by recorded evidence, 1 by the policy's class alone (a read-only tool, or a sync_confirmed tool's returned status), 1 with no effect to wait for.",
    );
    expect(finalBasisSentence({ final: { successes: 0, n: 0 }, finalBasis: {}, harnessDesigns: [] })).toBe("No run is final yet.");
  });

  it("says which units rest on a declared design and which on recorded touches and resets", () => {
    expect(separationBasisSentence({ units: { runRows: 600, analysisUnits: 600, largest: 1 }, harnessDesigns: agentdojo(600) })).toBe(
      "600 analysis units of 600 runs: 600 runs separate by AgentDojo's design, 0 runs by the touches and resets recorded for them.",
    );
    expect(separationBasisSentence({ units: { runRows: 2, analysisUnits: 1, largest: 2 }, harnessDesigns: [] })).toBe(
      "1 analysis unit of 2 runs, from the touches and resets recorded for them.",
    );
  });

  it("says on a run's page what its final label rests on", () => {
    const effects = [{ resolutions: [{ verifiedBy: "MCP tasks/get (the recorder's poll)" }, { verifiedBy: null }] }, { resolutions: [] }];
    expect(runBasisText({ finalityBasis: "recorded_evidence", harnessDesign: null, effects })).toBe(
      "by recorded evidence, from MCP tasks/get (the recorder's poll), an unnamed source",
    );
    expect(runBasisText({ finalityBasis: "harness_design", harnessDesign: "agentdojo", effects: [] })).toBe(
      `by AgentDojo's design, not by evidence in its record: ${HARNESS_DESIGNS.agentdojo.statement}`,
    );
    expect(runBasisText({ finalityBasis: "no_effects", harnessDesign: null, effects: [] })).toBe("with no effect to wait for");
    expect(runBasisText({ finalityBasis: null, harnessDesign: "agentdojo", effects: [] })).toBeNull();
  });
});
