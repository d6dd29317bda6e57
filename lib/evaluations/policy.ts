// The declared effect policy (issue 10 §1): which class each tool's effects belong to. Pure.
import type { EffectPolicy, ToolClass } from "./schemas";

/**
 * Whether `tool` matches `pattern`, where `*` matches any run of characters and everything else is
 * literal. Linear in the tool's length per literal part, never backtracking: the parts between
 * stars are found left to right, each at its first place after the previous one (the leftmost
 * place never loses a match a later one would find). A regular expression built from the pattern
 * backtracked exponentially: `*a*a*a*a*b` against 200 `a`s held the server's thread for 13 s.
 */
export function globMatches(pattern: string, tool: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === tool;
  const head = parts[0]!;
  const tail = parts.at(-1)!;
  if (tool.length < head.length + tail.length || !tool.startsWith(head) || !tool.endsWith(tail)) return false;
  let from = head.length;
  const end = tool.length - tail.length;
  for (const part of parts.slice(1, -1)) {
    if (part === "") continue;
    const at = tool.indexOf(part, from);
    if (at === -1 || at + part.length > end) return false;
    from = at + part.length;
  }
  return true;
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
    if (pattern.includes("*") && globMatches(pattern, tool) && (!best || pattern.length > best.length))
      best = { length: pattern.length, cls };
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

/**
 * The classes an importer offers (its built-in policy) that an existing evaluation's policy leaves
 * unclassified: what a log imported into that evaluation adds, so that its tools keep the classes
 * the importer knows. A tool the policy names, or a pattern of it matches, keeps the evaluation's
 * class; an offered pattern is adopted only when the policy does not name that pattern itself.
 */
export function classesToAdopt(current: EffectPolicy, offered: EffectPolicy): EffectPolicy["tools"] {
  const adopted: EffectPolicy["tools"] = {};
  for (const [tool, cls] of Object.entries(offered.tools)) {
    if (Object.hasOwn(current.tools, tool)) continue;
    if (!tool.includes("*") && classifyTool(current, tool) !== "unclassified") continue;
    adopted[tool] = cls;
  }
  return adopted;
}

/** Whether two policies classify by the same rules (the same names and patterns, each to the same class). */
export function samePolicy(a: EffectPolicy, b: EffectPolicy): boolean {
  const keys = Object.keys(a.tools);
  return keys.length === Object.keys(b.tools).length && keys.every((k) => Object.hasOwn(b.tools, k) && b.tools[k] === a.tools[k]);
}
