// Surface templates suggested for the tools whose policy entry has none: an argument whose name looks
// like a path, a URL or an id names the state, and the tool's MCP annotations (readOnlyHint → reads,
// destructiveHint → writes), else its class, say whether the call reads or writes it. A suggestion
// changes nothing: the policy form offers it, and it counts once saved into a version.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { rowsOf } from "../../db/rows";
import { entryTemplates, toolEntry } from "../policy";
import type { EffectPolicy } from "../effect-policy-schema";
import type { ToolClass } from "../vocabulary";
import type { ToolAnnotations } from "../tool-suggestions";

/** The last word of an argument's name (snake, kebab, camel or dotted) that marks it as naming state, and the surface kind it names. */
const FILE_WORDS = new Set(["path", "file", "filename", "filepath", "dir", "directory", "folder"]);
const URL_WORDS = new Set(["uri", "url"]);
const ID_WORDS = new Set(["id", "account", "iban", "key", "bucket", "table", "repo", "repository", "channel", "record"]);

const lastWord = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.\-]+/)
    .filter(Boolean)
    .at(-1)
    ?.toLowerCase() ?? "";

/** The template an argument makes when its name looks like a path, a URL or an id; null when it does not. */
export function argumentTemplate(name: string): string | null {
  if (/[{}]/.test(name)) return null;
  const word = lastWord(name);
  if (FILE_WORDS.has(word)) return `fs:{${name}}`;
  if (URL_WORDS.has(word)) return `url:{${name}}`;
  if (ID_WORDS.has(word)) return `${name.toLowerCase()}:{${name}}`;
  return null;
}

export interface TemplateSuggestion {
  tool: string;
  op: "reads" | "writes";
  template: string;
  reason: string;
}

/**
 * A tool's suggested template: the first of its argument names (in the order given) that makes one,
 * read or written as its annotations say (readOnlyHint → reads, destructiveHint → writes), else as its
 * class does (read_only → reads; any other, unclassified included, writes: a write connects more runs).
 */
export function suggestTemplate(
  tool: string,
  argumentNames: readonly string[],
  cls: ToolClass,
  annotations: ToolAnnotations | undefined,
): TemplateSuggestion | null {
  const found = argumentNames.map((name) => ({ name, template: argumentTemplate(name) })).find((a) => a.template !== null);
  if (!found) return null;
  const op = annotations?.readOnlyHint ? "reads" : annotations?.destructiveHint ? "writes" : cls === "read_only" ? "reads" : "writes";
  const why = annotations?.readOnlyHint
    ? "annotated readOnlyHint"
    : annotations?.destructiveHint
      ? "annotated destructiveHint"
      : `classed ${cls}`;
  return { tool, op, template: found.template!, reason: `argument ${found.name} looks like it names state; ${why}` };
}

/** Runs whose calls' argument names are read for suggestions: the latest ones, so that the page's read stays bounded. */
const SAMPLED_RUNS = 200;

/**
 * Suggested templates for the tools called in the evaluation's latest runs whose policy entry has no
 * template, from those calls' argument names (most frequent first) and the recorders' annotations.
 */
export async function templateSuggestions(
  db: SqlClient,
  evaluationId: string,
  policy: EffectPolicy,
  classOf: (tool: string) => ToolClass,
  annotationsOf: ReadonlyMap<string, ToolAnnotations>,
): Promise<TemplateSuggestion[]> {
  const rows = rowsOf(
    z.object({ tool: z.string(), names: z.array(z.string()) }),
    await db.$queryRaw`
      -- The bound starts the backward scan at the evaluation's last run: without it the planner may walk the primary key down
      -- through every later evaluation's runs first (a million of them after a bulk load).
      WITH recent AS (SELECT id, tool_calls FROM evaluation_runs
                       WHERE evaluation_id = ${evaluationId}::uuid AND id <= (SELECT max(id) FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid)
                       ORDER BY id DESC LIMIT ${SAMPLED_RUNS}),
      calls AS (
        SELECT c->>'tool' AS tool, c->'arguments' AS args FROM recent CROSS JOIN LATERAL jsonb_array_elements(recent.tool_calls) AS c
         WHERE jsonb_typeof(recent.tool_calls) = 'array'
        UNION ALL
        SELECT e.tool, e.arguments FROM recent JOIN evaluation_effects e ON e.run_id = recent.id
      ), named AS (
        SELECT tool, k AS name, count(*) AS n FROM calls CROSS JOIN LATERAL jsonb_object_keys(args) AS k
         WHERE jsonb_typeof(args) = 'object' GROUP BY tool, k
      )
      SELECT tool, array_agg(name ORDER BY n DESC, name) AS names FROM named GROUP BY tool ORDER BY tool`,
  );
  return rows.flatMap(({ tool, names }) => {
    const entry = toolEntry(policy, tool);
    const templated = entry !== null && Object.keys(entryTemplates(entry)).length > 0;
    const suggestion = templated ? null : suggestTemplate(tool, names, classOf(tool), annotationsOf.get(tool));
    return suggestion ? [suggestion] : [];
  });
}
