import { describe, expect, it } from "vitest";
import { latexEscape, table3Latex, tableA1Latex } from "./latex";
import { REFERENCE_PROTOCOLS, TABLE_3, TABLE_A1 } from "./reference-data";
import { computeTable3, type CellReviewers, type ConsensusMatrix } from "./table3";

const protocols = REFERENCE_PROTOCOLS.map((p) => p.name);

describe("the paper's reference data", () => {
  it("has ten protocols, Table A.1 for six of them, and Table 3 totals of ten per field", () => {
    expect(protocols).toEqual([
      "WebArena",
      "WorkArena",
      "OSWorld",
      "SWE-bench",
      "tau-bench",
      "ToolSandbox",
      "TheAgentCompany",
      "RE-Bench",
      "Cybench",
      "AgentCanary",
    ]);
    expect(Object.keys(TABLE_A1)).toEqual(protocols.slice(0, 6));
    for (const counts of Object.values(TABLE_3)) expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(10);
  });
});

describe("computeTable3", () => {
  it("counts the six coded protocols and, while no coded cell contradicts the paper, lists no difference: the shortfalls are the uncoded cells'", () => {
    const rows = computeTable3(protocols, TABLE_A1 as ConsensusMatrix);
    const reset = rows.find((r) => r.field === "reset_or_retention")!;
    expect(reset.counts).toEqual({ E: 6, P: 0, NR: 0, NA: 0 });
    expect(reset.uncoded).toBe(4);
    expect(reset.mismatches).toEqual([]);
    expect(reset.shortfalls).toEqual([
      { code: "E", here: 6, paper: 8 },
      { code: "P", here: 0, paper: 2 },
    ]);
    const open = rows.find((r) => r.field === "open_work")!;
    expect(open.counts).toEqual({ E: 0, P: 1, NR: 3, NA: 2 });
    expect(open.shortfalls!.map((m) => m.code)).toEqual(["P", "NR"]);
    expect(rows.flatMap((r) => r.mismatches)).toEqual([]);
  });

  it("explains each difference by its cells and the uncoded ones once a coded count passes the paper's", () => {
    const rows = computeTable3(protocols, { ...TABLE_A1, Cybench: { reset_or_retention: "NA" } } as ConsensusMatrix);
    const reset = rows.find((r) => r.field === "reset_or_retention")!;
    expect(reset.counts).toEqual({ E: 6, P: 0, NR: 0, NA: 1 });
    expect(reset.shortfalls).toEqual([]);
    expect(reset.mismatches.map((m) => [m.code, m.here, m.paper])).toEqual([
      ["E", 6, 8],
      ["P", 0, 2],
      ["NA", 1, 0],
    ]);
    expect(reset.mismatches[0]!.explanation).toBe(
      "2 fewer than the paper's 8: coded E here: WebArena, WorkArena, OSWorld, SWE-bench, tau-bench, ToolSandbox; 3 cell(s) still uncoded (TheAgentCompany, RE-Bench, AgentCanary)",
    );
  });

  it("names the counted cells whose consensus rests on fewer than two reviewers, when given the counts", () => {
    const reviewers: CellReviewers = Object.fromEntries(
      protocols.map((p) => [p, { open_work: 1, reset_or_retention: 1, separate_evidence: 1 }]),
    );
    reviewers.WebArena = { open_work: 3, reset_or_retention: 2, separate_evidence: 1 };
    const rows = computeTable3(protocols, TABLE_A1 as ConsensusMatrix, reviewers);
    const open = rows.find((r) => r.field === "open_work")!;
    expect(open.singleReviewer).toEqual(["WorkArena", "OSWorld", "SWE-bench", "tau-bench", "ToolSandbox"]);
    expect(rows.find((r) => r.field === "separate_evidence")!.singleReviewer).toHaveLength(6);
    expect(computeTable3(protocols, TABLE_A1 as ConsensusMatrix)[0]).not.toHaveProperty("singleReviewer");
    expect(table3Latex(rows)).toContain("\\multicolumn{5}{l}{\\footnotesize 16 of 18 counted cells rest on one reviewer's code.} \\\\");
    const a1 = tableA1Latex(protocols, TABLE_A1 as ConsensusMatrix, reviewers);
    expect(a1).toContain("WebArena & NR & E & P$^{1}$ \\\\");
    expect(a1).toContain("$^{1}$ the consensus rests on one reviewer's code.");
  });

  it("has no mismatch when the matrix reproduces the paper's totals", () => {
    const complete: ConsensusMatrix = {
      ...TABLE_A1,
      TheAgentCompany: { open_work: "NR", reset_or_retention: "E", separate_evidence: "P" },
      "RE-Bench": { open_work: "NR", reset_or_retention: "E", separate_evidence: "P" },
      Cybench: { open_work: "NR", reset_or_retention: "P", separate_evidence: "P" },
      AgentCanary: { open_work: "P", reset_or_retention: "P", separate_evidence: "E" },
    };
    const rows = computeTable3(protocols, complete);
    expect(rows.flatMap((r) => [...r.mismatches, ...r.shortfalls!])).toEqual([]);
    expect(rows.map((r) => [r.label, r.counts])).toEqual([
      ["Reset or deliberate retention", { E: 8, P: 2, NR: 0, NA: 0 }],
      ["Open or descendant work", { E: 0, P: 2, NR: 6, NA: 2 }],
      ["Evidence for separate scoring", { E: 3, P: 7, NR: 0, NA: 0 }],
    ]);
  });
});

describe("LaTeX", () => {
  it("escapes the characters LaTeX treats specially", () => {
    expect(latexEscape("R&D 100% #1 a_b {x} ~ ^ \\")).toBe(
      "R\\&D 100\\% \\#1 a\\_b \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}",
    );
  });

  it("prints Table 3 and Table A.1 with the matrix's cells", () => {
    const rows = computeTable3(protocols, TABLE_A1 as ConsensusMatrix);
    expect(table3Latex(rows)).toContain("Open or descendant work & 0 & 1 & 3 & 2 \\\\");
    expect(table3Latex(rows)).not.toContain("multicolumn");
    const a1 = tableA1Latex(protocols, TABLE_A1 as ConsensusMatrix);
    expect(a1).toContain("SWE-bench & P & E & E \\\\");
    expect(a1).toContain("Cybench & -- & -- & -- \\\\");
    expect(a1.split("\n").filter((l) => l.endsWith("\\\\"))).toHaveLength(11);
  });
});
