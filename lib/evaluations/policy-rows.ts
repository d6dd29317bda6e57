// The effect-policy editor's rows (tool name or pattern, class) and the policy they make. Pure: the
// create form and the new-version form both build their body through it.
import { EFFECT_CLASSES, type EffectClass, type EffectPolicy } from "./schemas";

export interface PolicyRow {
  tool: string;
  effectClass: EffectClass;
}

export const policyRowsOf = (policy: EffectPolicy): PolicyRow[] =>
  Object.entries(policy.tools).map(([tool, effectClass]) => ({ tool, effectClass }));

/** A row the policy cannot take (1-based, as the form numbers its rows): why in the form's message, and below the row itself. */
export interface RowProblem {
  row: number;
  message: string;
  belowRow: string;
}

/**
 * The rows as `{tools}`, or why not in the form's words, every bad row at once: a record cannot hold
 * an empty or repeated key, so those are named by row before the schema sees them.
 */
export function policyFromRows(
  rows: readonly PolicyRow[],
): { ok: true; policy: EffectPolicy } | { ok: false; message: string; problems: RowProblem[] } {
  const tools: Record<string, EffectClass> = {};
  const firstRowOf = new Map<string, number>();
  const problems: RowProblem[] = [];
  for (const [i, row] of rows.entries()) {
    const tool = row.tool.trim();
    const first = firstRowOf.get(tool);
    const n = i + 1;
    if (!tool)
      problems.push({
        row: n,
        message: `row ${n} has no tool name; enter a tool's name or a pattern with *, or remove the row`,
        belowRow: `Row ${n} has no tool name: enter a tool's name or a pattern with *, or remove the row.`,
      });
    else if (first !== undefined)
      problems.push({
        row: n,
        message: `“${tool}” appears twice (rows ${first} and ${n}); keep one`,
        belowRow: `Row ${n} repeats “${tool}” from row ${first}: keep one.`,
      });
    else if (!EFFECT_CLASSES.includes(row.effectClass))
      problems.push({
        row: n,
        message: `row ${n}'s class must be one of ${EFFECT_CLASSES.join(", ")}`,
        belowRow: `Row ${n}'s class must be one of ${EFFECT_CLASSES.join(", ")}.`,
      });
    else {
      firstRowOf.set(tool, n);
      tools[tool] = row.effectClass;
    }
  }
  if (problems.length === 0) return { ok: true, policy: { tools } };
  const message =
    problems.length === 1
      ? `Effect policy: ${problems[0]!.message}`
      : `Effect policy: ${problems.length} rows need attention (rows ${problems.map((p) => p.row).join(", ")}); each says why below it`;
  return { ok: false, message, problems };
}
