import { FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS, type ReviewCode, type ReviewField } from "./codes";
import { TABLE_3 } from "./reference-data";

/** A protocol's consensus code per field; a missing field is uncoded. */
export type ConsensusMatrix = Record<string, Partial<Record<ReviewField, ReviewCode>>>;

/** How many reviewers coded each cell (the paper, which one person coded, counts as one); a missing cell has none. */
export type CellReviewers = Record<string, Partial<Record<ReviewField, number>>>;

/** A consensus resting on fewer than two reviewers' codes is one person's reading, not an agreement: it is marked wherever shown. */
export const SINGLE_REVIEWER_BELOW = 2;

/** "1 reviewer", "0 reviewers". */
export const reviewerCount = (n: number) => `${n} reviewer${n === 1 ? "" : "s"}`;

/** Whether a consensus cell rests on fewer than two reviewers' codes. */
export const restsOnOneReviewer = (reviewers: number | undefined) => (reviewers ?? 0) < SINGLE_REVIEWER_BELOW;

export interface Table3Row {
  field: ReviewField;
  label: string;
  counts: Record<ReviewCode, number>;
  uncoded: number;
  paper: Record<ReviewCode, number>;
  /**
   * One entry per code whose count differs from the paper's, with the cells behind it: only when the
   * coded cells contradict the paper (a count above it, or every cell coded). A count below the paper's
   * that the uncoded cells can still make up is no difference: it is in `shortfalls`.
   */
  mismatches: { code: ReviewCode; here: number; paper: number; cells: string[]; explanation: string }[];
  /** Counts below the paper's while no coded cell contradicts it: what the uncoded cells are left to make up (absent from share snapshots taken before it was counted). */
  shortfalls?: { code: ReviewCode; here: number; paper: number }[];
  /** The counted cells whose consensus rests on fewer than two reviewers' codes (protocol names); absent when the reviewer counts are not given. */
  singleReviewer?: string[];
}

/**
 * Table 3 computed from the current consensus codes of every protocol, beside the paper's totals.
 * Each mismatch names the protocols coded with that code here, and how many cells are still
 * uncoded, so a reader can see which cells make the difference.
 */
export function computeTable3(protocols: string[], matrix: ConsensusMatrix, reviewers?: CellReviewers): Table3Row[] {
  const order: ReviewField[] = ["reset_or_retention", "open_work", "separate_evidence"]; // the paper's row order
  return order
    .filter((f) => REVIEW_FIELDS.includes(f))
    .map((field) => {
      const counts = Object.fromEntries(REVIEW_CODES.map((c) => [c, 0])) as Record<ReviewCode, number>;
      const byCode = Object.fromEntries(REVIEW_CODES.map((c) => [c, [] as string[]])) as Record<ReviewCode, string[]>;
      const uncodedCells: string[] = [];
      for (const protocol of protocols) {
        const code = matrix[protocol]?.[field];
        if (code) {
          counts[code]++;
          byCode[code].push(protocol);
        } else uncodedCells.push(protocol);
      }
      const paper = TABLE_3[field];
      // The counts of both add up to the protocols: while cells are uncoded, only a count above the paper's shows a contradiction.
      const contradicts = uncodedCells.length === 0 || REVIEW_CODES.some((code) => counts[code] > paper[code]);
      const differing = REVIEW_CODES.filter((code) => counts[code] !== paper[code]);
      const shortfalls = contradicts ? [] : differing.map((code) => ({ code, here: counts[code], paper: paper[code] }));
      const singleReviewer = reviewers
        ? protocols.filter((protocol) => matrix[protocol]?.[field] && restsOnOneReviewer(reviewers[protocol]?.[field]))
        : undefined;
      const mismatches = (contradicts ? differing : []).map((code) => {
        const here = counts[code];
        const cells = byCode[code];
        const direction = here < paper[code] ? `${paper[code] - here} fewer` : `${here - paper[code]} more`;
        const who = cells.length ? `coded ${code} here: ${cells.join(", ")}` : `no protocol is coded ${code} here`;
        const open = uncodedCells.length ? `; ${uncodedCells.length} cell(s) still uncoded (${uncodedCells.join(", ")})` : "";
        return { code, here, paper: paper[code], cells, explanation: `${direction} than the paper's ${paper[code]}: ${who}${open}` };
      });
      return {
        field,
        label: FIELD_INFO[field].table3Label,
        counts,
        uncoded: uncodedCells.length,
        paper,
        mismatches,
        shortfalls,
        ...(singleReviewer && { singleReviewer }),
      };
    });
}
