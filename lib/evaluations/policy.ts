// The declared effect policy (issue 10 §1): which class each tool's effects belong to. Pure.
import type { EffectPolicy, ToolClass } from "./schemas";

/** `*` matches any run of characters; everything else is literal. */
function patternMatches(pattern: string, tool: string): boolean {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(tool);
}

/**
 * A tool's class under a policy: its exact name if the policy names it, else the longest pattern
 * that matches it, else `unclassified` (never silently read-only).
 */
export function classifyTool(policy: EffectPolicy, tool: string): ToolClass {
  const exact = Object.hasOwn(policy.tools, tool) ? policy.tools[tool] : undefined;
  if (exact) return exact;
  let best: { length: number; cls: ToolClass } | null = null;
  for (const [pattern, cls] of Object.entries(policy.tools)) {
    if (pattern.includes("*") && patternMatches(pattern, tool) && (!best || pattern.length > best.length)) best = { length: pattern.length, cls };
  }
  return best?.cls ?? "unclassified";
}

/** A classifier bound to one policy, remembering each tool's class (a batch names few tools many times). */
export function toolClassifier(policy: EffectPolicy): (tool: string) => ToolClass {
  const known = new Map<string, ToolClass>();
  return (tool) => {
    let cls = known.get(tool);
    if (!cls) known.set(tool, (cls = classifyTool(policy, tool)));
    return cls;
  };
}
