// Tool classes a recorder suggests (docs/recording.md, Tool classes suggested by recorders): the MCP recorder reads each tool's annotations and
// sees which calls are answered with a task. A suggestion changes no figure: it is shown beside the
// effect policy, and a user accepts it by saving it into a new policy version.
import { z } from "zod";
import type { SqlClient } from "../db/sql-transaction";
import { rowsOf } from "../db/rows";
import type { SqlTx } from "../db/sql-transaction";
import { notFound } from "../errors";
import { EFFECT_CLASSES, text } from "./vocabulary";

export const MAX_SUGGESTIONS_PER_REQUEST = 1_000;

const hint = (name: string) => z.boolean(`${name} must be true or false`).optional();
/** MCP's tool annotations (2025-11-25), as the server declared them. */
export const toolAnnotationsSchema = z.strictObject({
  readOnlyHint: hint("readOnlyHint"),
  destructiveHint: hint("destructiveHint"),
  idempotentHint: hint("idempotentHint"),
  openWorldHint: hint("openWorldHint"),
});
export type ToolAnnotations = z.infer<typeof toolAnnotationsSchema>;

export const toolSuggestionSchema = z.strictObject({
  tool: text("tool", 200),
  suggestedClass: z.enum(EFFECT_CLASSES, `suggestedClass must be one of ${EFFECT_CLASSES.join(", ")}`),
  reason: text("reason", 1_000),
  annotations: toolAnnotationsSchema.optional(),
});
export type ToolSuggestion = z.infer<typeof toolSuggestionSchema>;

/** POST /api/v1/evaluations/{id}/tool-suggestions: a recorder's suggestions, replacing its earlier ones for the same tools. */
export const postToolSuggestionsBodySchema = z.strictObject({
  source: text("source", 200),
  tools: z
    .array(toolSuggestionSchema)
    .min(1, "tools must not be empty")
    .max(MAX_SUGGESTIONS_PER_REQUEST, `tools must hold at most ${MAX_SUGGESTIONS_PER_REQUEST} suggestions`),
});
export type PostToolSuggestionsBody = z.infer<typeof postToolSuggestionsBodySchema>;

export const storedToolSuggestionSchema = toolSuggestionSchema.extend({ source: z.string(), updatedAt: z.string() });
export type StoredToolSuggestion = z.infer<typeof storedToolSuggestionSchema>;
export const toolSuggestionsAnswerSchema = z.object({ suggestions: z.array(storedToolSuggestionSchema) });

/** Stores the suggestions (the last one of a tool wins within a body); 404 for an unknown evaluation. */
export async function storeToolSuggestions(
  db: Pick<SqlTx, "$executeRaw">,
  evaluationId: string,
  body: PostToolSuggestionsBody,
): Promise<{ stored: number }> {
  const byTool = new Map(body.tools.map((t) => [t.tool, t]));
  const tools = [...byTool.values()];
  const stored = await db.$executeRaw`
    INSERT INTO evaluation_tool_suggestions (evaluation_id, tool, source, suggested_class, reason, annotations)
    SELECT e.id, x.tool, ${body.source}, x.suggested_class, x.reason, x.annotations
      FROM evaluations e,
           unnest(${tools.map((t) => t.tool)}::text[], ${tools.map((t) => t.suggestedClass)}::text[], ${tools.map((t) => t.reason)}::text[],
                  ${tools.map((t) => (t.annotations ? JSON.stringify(t.annotations) : null))}::jsonb[]) AS x(tool, suggested_class, reason, annotations)
     WHERE e.id = ${evaluationId}::uuid
    ON CONFLICT (evaluation_id, tool, source) DO UPDATE
       SET suggested_class = EXCLUDED.suggested_class, reason = EXCLUDED.reason, annotations = EXCLUDED.annotations, updated_at = now()`;
  if (stored === 0) throw notFound("evaluation");
  return { stored };
}

const suggestionRow = z.object({
  tool: z.string(),
  source: z.string(),
  suggested_class: z.enum(EFFECT_CLASSES),
  reason: z.string(),
  annotations: toolAnnotationsSchema.nullable(),
  updated_at: z.date(),
});

/** The evaluation's suggestions by tool, then source. */
export async function listToolSuggestions(db: SqlClient, evaluationId: string): Promise<StoredToolSuggestion[]> {
  return rowsOf(
    suggestionRow,
    await db.$queryRaw`
      SELECT tool, source, suggested_class, reason, annotations, updated_at FROM evaluation_tool_suggestions
       WHERE evaluation_id = ${evaluationId}::uuid ORDER BY tool, source`,
  ).map((r) => ({
    tool: r.tool,
    source: r.source,
    suggestedClass: r.suggested_class,
    reason: r.reason,
    ...(r.annotations && { annotations: r.annotations }),
    updatedAt: r.updated_at.toISOString(),
  }));
}
