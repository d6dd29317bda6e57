import { describe, expect, it } from "vitest";
import { argumentLatex, argumentMarkdown, latexText, type ArgumentExport } from "./completion-export";
import { argumentSchema } from "./completion-schema";
import { argumentStatus } from "./completion-status";

const argument = argumentSchema.parse({
  questions: {
    outcome: {
      answer: "Success on 100% of $5 tasks_#1 {a} ~ ^ \\ <b> |c|\nnext line\n\nnew paragraph",
      sourceLocation: "Sec. 3 & App. A",
      sourcesReadOn: "2026-11-30",
    },
  },
  routes: [
    { kind: "queues", description: "Job queue\nwith retries & 5% loss", scope: "out", scopeReason: "no queue in v2", treatment: "blocked" },
  ],
});
const view = (): ArgumentExport => ({
  protocol: { name: "R&D_Bench", benchmarkVersion: "v1.0", scope: null },
  consensus: { reset_or_retention: "E" },
  current: { version: 2, updatedAt: "2026-12-01T10:00:00.000Z", updatedBy: "eve@example.test", argument },
  evidence: {},
  status: argumentStatus(argument, { reset_or_retention: "E" }, new Map()),
});

describe("LaTeX export", () => {
  it("escapes every special character in prose, keeping paragraphs and line breaks", () => {
    expect(latexText("100% $5 a_b #1 {x} ~ ^ \\ <b> |c|")).toBe(
      "100\\% \\$5 a\\_b \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} \\textless{}b\\textgreater{} \\textbar{}c\\textbar{}",
    );
    expect(latexText("one\ntwo\n\n\nthree")).toBe("one\\\\\ntwo\n\nthree");
  });

  it("renders the argument with headings, the routes table (newlines in a cell become spaces) and unanswered questions said", () => {
    const tex = argumentLatex(view());
    expect(tex).toContain("\\section*{Completion argument: R\\&D\\_Bench}");
    expect(tex).toContain("Success on 100\\% of \\$5 tasks\\_\\#1");
    expect(tex).toContain("Queues & Job queue with retries \\& 5\\% loss & out (no queue in v2) & Blocked & none \\\\");
    expect(tex).toContain("\\subsection*{2. What ends the interaction, and what determines the score?}\n\n\\emph{Not answered.}");
    expect(tex).toContain("questions answered: 1/4");
  });
});

describe("Markdown export", () => {
  it("escapes Markdown syntax and puts a newline-free route row in the table", () => {
    const md = argumentMarkdown(view());
    expect(md).toContain("# Completion argument: R&D\\_Bench");
    expect(md).toContain("| 1 | Queues | Job queue with retries & 5% loss | out (no queue in v2) | Blocked | none |");
    expect(md).toContain("## 2. What ends the interaction, and what determines the score?\n\n_Not answered._");
    expect(md).toContain("Questions answered: 1/4.");
  });
});
