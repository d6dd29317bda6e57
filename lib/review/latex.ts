import { FIELD_INFO, REVIEW_FIELDS, type ReviewCode, type ReviewField } from "./codes";
import { restsOnOneReviewer, type CellReviewers, type ConsensusMatrix, type Table3Row } from "./table3";

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

/** Table 3 (counts of E, P, NR, NA per field) as a booktabs table, ready to paste into a paper; a note says how many counted cells rest on one reviewer. */
export function table3Latex(rows: Table3Row[]): string {
  const body = rows.map((r) => `${latexEscape(r.label)} & ${r.counts.E} & ${r.counts.P} & ${r.counts.NR} & ${r.counts.NA} \\\\`);
  const counted = rows.reduce((sum, r) => sum + Object.values(r.counts).reduce((a, b) => a + b, 0), 0);
  const single = rows.reduce((sum, r) => sum + (r.singleReviewer?.length ?? 0), 0);
  return [
    "\\begin{tabular}{lrrrr}",
    "\\toprule",
    "Publicly visible field & Explicit & Partial & NR & NA \\\\",
    "\\midrule",
    ...body,
    "\\bottomrule",
    ...(single > 0 ? [`\\multicolumn{5}{l}{\\footnotesize ${single} of ${counted} counted cells rest on one reviewer's code.} \\\\`] : []),
    "\\end{tabular}",
    "",
  ].join("\n");
}

/**
 * Table A.1 (each protocol's code per field) as a booktabs table; an uncoded cell is left as "--".
 * Given the reviewer counts, a code resting on one reviewer's reading carries a superscript 1 and a note says so.
 */
export function tableA1Latex(protocols: string[], matrix: ConsensusMatrix, reviewers?: CellReviewers): string {
  const single = (p: string, f: ReviewField) => reviewers !== undefined && restsOnOneReviewer(reviewers[p]?.[f]);
  const cell = (p: string, f: ReviewField, code: ReviewCode | undefined) =>
    code === undefined ? "--" : single(p, f) ? `${code}$^{1}$` : code;
  const marked = protocols.some((p) => REVIEW_FIELDS.some((f) => matrix[p]?.[f] && single(p, f)));
  const body = protocols.map((p) => `${latexEscape(p)} & ${REVIEW_FIELDS.map((f) => cell(p, f, matrix[p]?.[f])).join(" & ")} \\\\`);
  return [
    "\\begin{tabular}{llll}",
    "\\toprule",
    `Protocol & ${REVIEW_FIELDS.map((f) => FIELD_INFO[f].label).join(" & ")} \\\\`,
    "\\midrule",
    ...body,
    "\\bottomrule",
    ...(marked ? ["\\multicolumn{4}{l}{\\footnotesize $^{1}$ the consensus rests on one reviewer's code.} \\\\"] : []),
    "\\end{tabular}",
    "",
  ].join("\n");
}
