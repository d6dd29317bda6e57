import { FIELD_INFO, REVIEW_FIELDS, type ReviewCode } from "./codes";
import type { ConsensusMatrix, Table3Row } from "./table3";

const SPECIALS: Record<string, string> = {
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
  "\\": "\\textbackslash{}",
};

/** Text safe inside a LaTeX table cell. */
export function latexEscape(text: string): string {
  return text.replace(/[&%$#_{}~^\\]/g, (c) => SPECIALS[c]!);
}

/** Table 3 (counts of E, P, NR, NA per field) as a booktabs table, ready to paste into a paper. */
export function table3Latex(rows: Table3Row[]): string {
  const body = rows.map((r) => `${latexEscape(r.label)} & ${r.counts.E} & ${r.counts.P} & ${r.counts.NR} & ${r.counts.NA} \\\\`);
  return [
    "\\begin{tabular}{lrrrr}",
    "\\toprule",
    "Publicly visible field & Explicit & Partial & NR & NA \\\\",
    "\\midrule",
    ...body,
    "\\bottomrule",
    "\\end{tabular}",
    "",
  ].join("\n");
}

/** Table A.1 (each protocol's code per field) as a booktabs table; an uncoded cell is left as "--". */
export function tableA1Latex(protocols: string[], matrix: ConsensusMatrix): string {
  const cell = (code: ReviewCode | undefined) => code ?? "--";
  const body = protocols.map((p) => `${latexEscape(p)} & ${REVIEW_FIELDS.map((f) => cell(matrix[p]?.[f])).join(" & ")} \\\\`);
  return [
    "\\begin{tabular}{llll}",
    "\\toprule",
    `Protocol & ${REVIEW_FIELDS.map((f) => FIELD_INFO[f].label).join(" & ")} \\\\`,
    "\\midrule",
    ...body,
    "\\bottomrule",
    "\\end{tabular}",
    "",
  ].join("\n");
}
