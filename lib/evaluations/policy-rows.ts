// The effect-policy editor's rows (tool name or pattern, class) and the policy they make. Pure: the
// create form and the new-version form both build their body through it.
import { EFFECT_CLASSES, type EffectClass, type EffectPolicy } from "./schemas";

export interface PolicyRow {
  tool: string;
  effectClass: EffectClass;
}

export const policyRowsOf = (policy: EffectPolicy): PolicyRow[] =>
  Object.entries(policy.tools).map(([tool, effectClass]) => ({ tool, effectClass }));

/**
 * The rows as `{tools}`, or why not in the form's words: a record cannot hold an empty or repeated
 * key, so those are named by row before the schema sees them. Rows left wholly empty are skipped.
 */
export function policyFromRows(rows: readonly PolicyRow[]): { ok: true; policy: EffectPolicy } | { ok: false; message: string } {
  const tools: Record<string, EffectClass> = {};
  for (const [i, row] of rows.entries()) {
    const tool = row.tool.trim();
    if (!tool)
      return {
        ok: false,
        message: `Effect policy: row ${i + 1} has no tool name; enter a tool's name or a pattern with *, or remove the row`,
      };
    if (Object.hasOwn(tools, tool))
      return {
        ok: false,
        message: `Effect policy: “${tool}” appears twice (rows ${rows.findIndex((r) => r.tool.trim() === tool) + 1} and ${i + 1}); keep one`,
      };
    if (!EFFECT_CLASSES.includes(row.effectClass))
      return { ok: false, message: `Effect policy: row ${i + 1}'s class must be one of ${EFFECT_CLASSES.join(", ")}` };
    tools[tool] = row.effectClass;
  }
  return { ok: true, policy: { tools } };
}
