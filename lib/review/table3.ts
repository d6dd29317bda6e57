import { FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS, type ReviewCode, type ReviewField } from "./codes";
import { TABLE_3 } from "./reference-data";

/** A protocol's consensus code per field; a missing field is uncoded. */
export type ConsensusMatrix = Record<string, Partial<Record<ReviewField, ReviewCode>>>;

export interface Table3Row {
  field: ReviewField;
  label: string;
  counts: Record<ReviewCode, number>;
  uncoded: number;
  paper: Record<ReviewCode, number>;
  /** One entry per code whose count differs from the paper's, with the cells behind it. */
  mismatches: { code: ReviewCode; here: number; paper: number; cells: string[]; explanation: string }[];
}

/**
 * Table 3 computed from the current consensus codes of every protocol, beside the paper's totals.
 * Each mismatch names the protocols coded with that code here, and how many cells are still
 * uncoded, so a reader can see which cells make the difference.
 */
export function computeTable3(protocols: string[], matrix: ConsensusMatrix): Table3Row[] {
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
      const mismatches = REVIEW_CODES.filter((code) => counts[code] !== paper[code]).map((code) => {
        const here = counts[code];
        const cells = byCode[code];
        const direction = here < paper[code] ? `${paper[code] - here} fewer` : `${here - paper[code]} more`;
        const who = cells.length ? `coded ${code} here: ${cells.join(", ")}` : `no protocol is coded ${code} here`;
        const open = uncodedCells.length ? `; ${uncodedCells.length} cell(s) still uncoded (${uncodedCells.join(", ")})` : "";
        return { code, here, paper: paper[code], cells, explanation: `${direction} than the paper's ${paper[code]}: ${who}${open}` };
      });
      return { field, label: FIELD_INFO[field].table3Label, counts, uncoded: uncodedCells.length, paper, mismatches };
    });
}
