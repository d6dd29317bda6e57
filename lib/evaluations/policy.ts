// The declared effect policy: which class each tool's effects belong to, and the surfaces
// its calls touch by templates over their arguments (surface-templates.ts). Pure.
import type { EffectClass, ToolClass } from "./vocabulary";
import type { EffectPolicy, ToolEntry } from "./effect-policy-schema";
import { renderSurfaceTemplate, templateParts, type CallSurface, type TemplatePart } from "./surface-templates";

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

/** An entry's class, whichever form it has. */
export const entryClass = (entry: ToolEntry): EffectClass => (typeof entry === "string" ? entry : entry.class);

/** An entry's templates (none for a bare class). */
export const entryTemplates = (entry: ToolEntry): { reads?: string; writes?: string } =>
  typeof entry === "string"
    ? {}
    : { ...(entry.reads !== undefined && { reads: entry.reads }), ...(entry.writes !== undefined && { writes: entry.writes }) };

/** An entry in words: its class, then its templates (`sync_confirmed, writes fs:{path}`). */
export function describeEntry(entry: ToolEntry): string {
  const { reads, writes } = entryTemplates(entry);
  return [
    entryClass(entry),
    ...(reads === undefined ? [] : [`reads ${reads}`]),
    ...(writes === undefined ? [] : [`writes ${writes}`]),
  ].join(", ");
}

/** The entry that governs `tool`: its exact name if the policy names it, else the longest pattern that matches it, else none. */
export function toolEntry(policy: EffectPolicy, tool: string): ToolEntry | null {
  if (Object.hasOwn(policy.tools, tool)) return policy.tools[tool]!;
  let best: { length: number; entry: ToolEntry } | null = null;
  for (const [pattern, entry] of Object.entries(policy.tools)) {
    if (pattern.includes("*") && globMatches(pattern, tool) && (!best || pattern.length > best.length))
      best = { length: pattern.length, entry };
  }
  return best?.entry ?? null;
}

/** A tool's class under a policy: its entry's class, else `unclassified` (never silently read-only). */
export function classifyTool(policy: EffectPolicy, tool: string): ToolClass {
  const entry = toolEntry(policy, tool);
  return entry === null ? "unclassified" : entryClass(entry);
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
 * The surfaces a call touches under a policy, by its tool's templates and its arguments (a tool whose
 * entry has none touches nothing this way). Bound to one policy, each tool's templates parsed once.
 */
export function callSurfacer(policy: EffectPolicy): (tool: string, args: Readonly<Record<string, unknown>> | undefined) => CallSurface[] {
  const known = new Map<string, { op: "read" | "write"; template: string; parts: TemplatePart[] }[]>();
  const templatesOf = (tool: string) => {
    let templates = known.get(tool);
    if (!templates) {
      const entry = toolEntry(policy, tool);
      const { reads, writes } = entry === null ? {} : entryTemplates(entry);
      templates = [
        ...(reads === undefined ? [] : [{ op: "read" as const, template: reads, parts: templateParts(reads) }]),
        ...(writes === undefined ? [] : [{ op: "write" as const, template: writes, parts: templateParts(writes) }]),
      ];
      known.set(tool, templates);
    }
    return templates;
  };
  return (tool, args) =>
    templatesOf(tool).map(({ op, template, parts }) => ({ op, template, rendered: renderSurfaceTemplate(parts, args) }));
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

/** Whether two entries say the same: one class and the same templates (a bare class is an object without templates). */
function sameEntry(a: ToolEntry, b: ToolEntry): boolean {
  const [ta, tb] = [entryTemplates(a), entryTemplates(b)];
  return entryClass(a) === entryClass(b) && ta.reads === tb.reads && ta.writes === tb.writes;
}

/** Whether two policies classify by the same rules (the same names and patterns, each to the same class and templates). */
export function samePolicy(a: EffectPolicy, b: EffectPolicy): boolean {
  const keys = Object.keys(a.tools);
  return keys.length === Object.keys(b.tools).length && keys.every((k) => Object.hasOwn(b.tools, k) && sameEntry(a.tools[k]!, b.tools[k]!));
}

/**
 * Whether two policies surely derive the same surfaces from every call: neither has a template, or
 * both name the same tools and patterns (so the same entry governs each tool) with the same templates
 * each. A change of classes alone keeps them; any other change counts as one, to be re-derived.
 */
export function sameTemplates(a: EffectPolicy, b: EffectPolicy): boolean {
  const templated = (p: EffectPolicy) =>
    Object.values(p.tools).some((entry) => typeof entry !== "string" && (entry.reads ?? entry.writes) !== undefined);
  if (!templated(a) && !templated(b)) return true;
  const keys = Object.keys(a.tools);
  return (
    keys.length === Object.keys(b.tools).length &&
    keys.every(
      (k) => Object.hasOwn(b.tools, k) && JSON.stringify(entryTemplates(a.tools[k]!)) === JSON.stringify(entryTemplates(b.tools[k]!)),
    )
  );
}
