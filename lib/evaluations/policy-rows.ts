// The effect-policy editor's rows (tool name or pattern, class, the templates of the surfaces its
// calls read and write) and the policy they make. Pure: the create form and the new-version form both
// build their body through it.
import { entryClass, entryTemplates } from "./policy";
import { EFFECT_CLASSES, type EffectClass } from "./vocabulary";
import type { EffectPolicy, ToolEntry } from "./effect-policy-schema";
import { parseSurfaceTemplate } from "./surface-templates";

export interface PolicyRow {
  tool: string;
  effectClass: EffectClass;
  /** Surface templates (`fs:{path}`); empty or absent: none. */
  reads?: string;
  writes?: string;
}

export const policyRowsOf = (policy: EffectPolicy): PolicyRow[] =>
  Object.entries(policy.tools).map(([tool, entry]) => ({ tool, effectClass: entryClass(entry), ...entryTemplates(entry) }));

/** A row the policy cannot take (1-based, as the form numbers its rows): why in the form's message, and below the row itself. */
export interface RowProblem {
  row: number;
  message: string;
  belowRow: string;
}

/**
 * The rows as `{tools}`, or why not in the form's words, every bad row at once: a record cannot hold
 * an empty or repeated key, so those are named by row before the schema sees them, and so is a
 * template the schema would refuse. A row with a template is an object entry; one without, its class.
 */
export function policyFromRows(
  rows: readonly PolicyRow[],
): { ok: true; policy: EffectPolicy } | { ok: false; message: string; problems: RowProblem[] } {
  const tools: Record<string, ToolEntry> = {};
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
      const templates = { reads: row.reads?.trim() || undefined, writes: row.writes?.trim() || undefined };
      const bad = (["reads", "writes"] as const).flatMap((op) => {
        const template = templates[op];
        const parsed = template === undefined ? null : parseSurfaceTemplate(template);
        return parsed && "problem" in parsed ? [{ op, problem: parsed.problem }] : [];
      });
      if (bad.length > 0)
        problems.push({
          row: n,
          message: `row ${n}'s ${bad[0]!.op} template: ${bad[0]!.problem}`,
          belowRow: `Row ${n}'s ${bad[0]!.op} template: ${bad[0]!.problem} (write {name} around each argument's name).`,
        });
      firstRowOf.set(tool, n);
      tools[tool] =
        templates.reads === undefined && templates.writes === undefined
          ? row.effectClass
          : {
              class: row.effectClass,
              ...(templates.reads !== undefined && { reads: templates.reads }),
              ...(templates.writes !== undefined && { writes: templates.writes }),
            };
    }
  }
  if (problems.length === 0) return { ok: true, policy: { tools } };
  const message =
    problems.length === 1
      ? `Effect policy: ${problems[0]!.message}`
      : `Effect policy: ${problems.length} rows need attention (rows ${problems.map((p) => p.row).join(", ")}); each says why below it`;
  return { ok: false, message, problems };
}
