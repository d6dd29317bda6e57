// The query strings of the runs and open-effects views: one zod schema per boundary, shared by the
// pages (their searchParams) and the API routes, so that a link and an API call mean the same view.
import { z } from "zod";
import { DomainError } from "../../errors";
import { parseInput, type SearchParams } from "../../http/input";
import { cursorOf, oneOf, optional, pageSize, wholeNumber } from "../../http/pagination";
import { int4 } from "../../http/storable";
import type { OperationStatus } from "../../delayed-write/delayed-write-schemas";
import { RUN_CLASSIFICATIONS } from "../../replay/rules/classification";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../../replay/rules/config";
import type { EffectRecord } from "../../replay/rules/records";

export const RUN_CONDITIONS = [...FINALITY_POLICIES, ...SEPARATION_CONDITIONS] as const;
export const RUN_ROLES = ["single", "A", "B"] as const;
/** `none`: the run makes no labelled claim (run A of a no-write pair). */
export const RECORDED_LABEL_FILTERS = ["success", "failure", "unresolved", "none"] as const;
/** As labels.ts `disagrees`: both labels present and equal, or both present and different. */
export const AGREEMENTS = ["agree", "disagree"] as const;
/** Exposure is recorded on B runs only; runs without it match neither. */
export const EXPOSURES = ["exposed", "unexposed"] as const;
export const TERMINAL_STATUSES = [
  "completed",
  "failed",
  "cancelled",
  "unresolved",
] as const satisfies readonly EffectRecord["terminalStatus"][];
/** The operation's status as the service reported it at the run's endpoint (delayed-write schemas). */
export const ENDPOINT_STATUSES = ["pending", "completed", "failed", "cancelled"] as const satisfies readonly OperationStatus[];
export const EXPORT_FORMATS = ["csv", "json"] as const;

const serviceMs = z.number().finite();
const id = z.guid();

/** Runs are listed in their natural key's order (the unique index runs_natural_key), which is total within an experiment. */
export const runCursorSchema = z.tuple([
  z.enum(RUN_CONDITIONS),
  int4("cursor"),
  int4("cursor"),
  int4("cursor"),
  z.enum(RUN_ROLES),
  z.string(),
]);
export type RunCursor = z.infer<typeof runCursorSchema>;

/** Open effects: unresolved first, then by experiment, service time and id (see effects.ts). */
export const effectCursorSchema = z.tuple([z.boolean(), id, serviceMs, id]);
export type EffectCursor = z.infer<typeof effectCursorSchema>;

const runFilterShape = {
  condition: optional(oneOf("condition", RUN_CONDITIONS)),
  delay: optional(wholeNumber("delay")),
  role: optional(oneOf("role", RUN_ROLES)),
  label: optional(oneOf("label", RECORDED_LABEL_FILTERS)),
  agreement: optional(oneOf("agreement", AGREEMENTS)),
  exposure: optional(oneOf("exposure", EXPOSURES)),
  classification: optional(oneOf("classification", RUN_CLASSIFICATIONS)),
};

const effectFilterShape = {
  experiment: optional(z.guid("experiment must be an experiment id (a UUID)")),
  terminal: optional(oneOf("terminal", TERMINAL_STATUSES)),
  endpoint: optional(oneOf("endpoint", ENDPOINT_STATUSES)),
};

/** GET /api/v1/experiments/:id/runs and the page /experiments/[id]/runs. */
export const runListQuerySchema = z.strictObject({ ...runFilterShape, cursor: optional(cursorOf(runCursorSchema)), limit: pageSize });
/** GET /api/v1/experiments/:id/runs/export: every matching run. */
export const runExportQuerySchema = z.strictObject({ ...runFilterShape, format: oneOf("format", EXPORT_FORMATS) });
/** GET /api/v1/effects and the page /effects. */
export const effectListQuerySchema = z.strictObject({
  ...effectFilterShape,
  cursor: optional(cursorOf(effectCursorSchema)),
  limit: pageSize,
});
/** GET /api/v1/effects/export: every matching open-effects record. */
export const effectExportQuerySchema = z.strictObject({ ...effectFilterShape, format: oneOf("format", EXPORT_FORMATS) });
/** The `[id]` of /runs/[id] and /api/v1/runs/:id. */
export const runIdSchema = z.strictObject({ id: z.guid("id must be a run id (a UUID)") });

export type RunListQuery = z.infer<typeof runListQuerySchema>;
export type RunFilters = Omit<RunListQuery, "cursor" | "limit">;
export type EffectListQuery = z.infer<typeof effectListQuerySchema>;
export type EffectFilters = Omit<EffectListQuery, "cursor" | "limit">;

/** The query string that reproduces a view: its filters (set ones only) and any extra parameters. */
export function viewQuery(filters: RunFilters | EffectFilters, extra: Record<string, string | number | null | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, ...extra })) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** Only the filters of a parsed runs query (not its cursor, limit or format), for links that carry them. */
export function runFiltersOf(query: RunFilters): RunFilters {
  const { condition, delay, role, label, agreement, exposure, classification } = query;
  return { condition, delay, role, label, agreement, exposure, classification };
}

/** Only the filters of a parsed open-effects query. */
export function effectFiltersOf(query: EffectFilters): EffectFilters {
  const { experiment, terminal, endpoint } = query;
  return { experiment, terminal, endpoint };
}

/** A page's searchParams through a query schema: the parsed query, or the message the API's 400 would give. */
export function parsePageQuery<T extends z.ZodType>(
  schema: T,
  search: SearchParams,
): { ok: true; query: z.infer<T> } | { ok: false; message: string } {
  try {
    return { ok: true, query: parseInput(schema, search, "query") };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, message: error.message };
    throw error;
  }
}

/** A page's searchParams back as a query string, exactly as given (for the sign-in redirect). */
export function searchString(search: SearchParams): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) for (const one of [value ?? []].flat()) params.append(key, one);
  const query = params.toString();
  return query ? `?${query}` : "";
}
