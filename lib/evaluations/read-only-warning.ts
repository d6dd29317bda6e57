// When the policy form warns that a read-only row hides writes. Pure: the form calls it, the tests
// check it, and the effects' triggers that count each tool's writes (migration tool_write_counts) use the same statuses.
import { globMatches } from "./policy";
import type { PolicyRow } from "./policy-rows";

/** Statuses at scoring that show an operation still in flight: a call that only read has none to wait for. */
export const STATUSES_SHOWING_A_WRITE = ["pending"] as const;

/** An effect record as far as this rule reads it. */
export interface EffectEvidence {
  surface: string | null;
  handle: string | null;
  statusAtScoring: string;
}

/**
 * Whether a recorded effect shows its call changed something: it names the surface it wrote, gives a
 * handle to follow an operation by, or was still pending at scoring. A call that returned with none
 * of these is what importers record for every call, reads included (an Inspect log's every tool
 * call is an effect), so it is no sign that read-only is wrong.
 */
export function effectShowsAWrite(effect: EffectEvidence): boolean {
  return (
    effect.surface !== null || effect.handle !== null || (STATUSES_SHOWING_A_WRITE as readonly string[]).includes(effect.statusAtScoring)
  );
}

/**
 * The tools a read-only row names or matches whose recorded effects show writes (how many each, by
 * effectShowsAWrite): classing those read-only would hide them. A tool whose effects show none is
 * rightly read-only as far as the evidence goes, and is not warned about.
 */
export function readOnlyRowsHidingWrites(
  rows: readonly PolicyRow[],
  writesByTool: Readonly<Record<string, number>>,
): { tool: string; writes: number }[] {
  const patterns = rows.filter((r) => r.effectClass === "read_only" && r.tool.trim() !== "").map((r) => r.tool.trim());
  return Object.entries(writesByTool)
    .filter(([tool, writes]) => writes > 0 && patterns.some((pattern) => globMatches(pattern, tool)))
    .map(([tool, writes]) => ({ tool, writes }));
}
