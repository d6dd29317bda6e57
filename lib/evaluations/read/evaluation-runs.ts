// An evaluation's runs as the lists show them: keyset pages under filters and text search, and the
// analysis units' labels. One run in full is evaluation-run.ts's; the units and tools, units-and-tools.ts's.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import type { SqlClient } from "../../db/sql-transaction";
import { Prisma } from "../../generated/prisma/client";
import { encodeCursor, likeContaining } from "../../http/pagination";
import type { EvaluationRunListItem, EvaluationRunListQuery, RunListCursor, RunSort } from "./read-boundary";
import { FINALITIES, FINALITY_BASES, INHERITED_STATES, LABELS, UNRESOLVED_REASONS } from "../vocabulary";

export const runRow = z.object({
  id: z.string(),
  external_id: z.string(),
  task_id: z.string(),
  attempt: z.number().int().nullable(),
  started_at: z.date(),
  scored_at: z.date().nullable(),
  endpoint_label: z.enum(LABELS).nullable(),
  unscored_reason: z.string().nullable(),
  terminal_label: z.enum(LABELS).nullable(),
  finality: z.enum(FINALITIES),
  unresolved_reason: z.enum(UNRESOLVED_REASONS).nullable(),
  unresolved_effect_id: z.string().nullable(),
  unresolved_tool: z.string().nullable(),
  finality_basis: z.enum(FINALITY_BASES).nullable(),
  harness_design: z.string().nullable(),
  disagreement: z.boolean(),
  analysis_unit: z.string().nullable(),
  inherited_state: z.enum(INHERITED_STATES),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  model_calls: z.number().int().nullable(),
  duration_ms: z.coerce.number().nullable(),
  score: z.number().nullable(),
  tool_call_count: z.number().int(),
  open_effects: z.number().int(),
});

export const listItem = (r: z.infer<typeof runRow>, unitLabels: ReadonlyMap<string, string>): EvaluationRunListItem => ({
  id: r.id,
  externalId: r.external_id,
  taskId: r.task_id,
  attempt: r.attempt,
  startedAt: r.started_at,
  scoredAt: r.scored_at,
  endpointLabel: r.endpoint_label,
  unscoredReason: r.unscored_reason,
  terminalLabel: r.terminal_label,
  finality: r.finality,
  unresolvedReason: r.unresolved_reason,
  unresolvedEffectId: r.unresolved_effect_id,
  unresolvedTool: r.unresolved_tool,
  finalityBasis: r.finality_basis,
  harnessDesign: r.harness_design,
  disagreement: r.disagreement,
  analysisUnit: r.analysis_unit,
  unitLabel: r.analysis_unit === null ? null : (unitLabels.get(r.analysis_unit) ?? null),
  inheritedState: r.inherited_state,
  durationMs: r.duration_ms,
  score: r.score,
  toolCallCount: r.tool_call_count,
  openEffects: r.open_effects,
  inputTokens: r.input_tokens,
  outputTokens: r.output_tokens,
  modelCallCount: r.model_calls,
});

const DURATION_MS = Prisma.sql`evaluation_run_duration_ms(started_at, ended_at, scored_at)`;
const TOOL_CALL_COUNT = Prisma.sql`evaluation_run_tool_call_count(tool_calls)`;

export const RUN_COLUMNS = Prisma.sql`id::text AS id, external_id, task_id, attempt, started_at, scored_at, endpoint_label, unscored_reason, terminal_label, finality, unresolved_reason,
  unresolved_effect_id, unresolved_tool, finality_basis, harness_design, disagreement, analysis_unit::text AS analysis_unit, inherited_state,
  ${DURATION_MS} AS duration_ms, score, ${TOOL_CALL_COUNT} AS tool_call_count, open_effects,
  input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens, model_calls`;

/** A frozen share link's view of the runs: those stored by `at`, audited under policy `policyVersion` then. */
export interface RunsAsOf {
  at: Date;
  policyVersion: number;
}

/**
 * What each sort orders by, and the type its cursor's value (PostgreSQL's text of it) is read back as: each has an index
 * (evaluation_id, it, id). Columns are qualified: in ORDER BY a bare name is the selected column (analysis_unit's text).
 */
const SORT_KEYS: Record<Exclude<RunSort, "stored">, { value: Prisma.Sql; type: Prisma.Sql }> = {
  start: { value: Prisma.sql`evaluation_runs.started_at`, type: Prisma.sql`timestamptz` },
  duration: { value: DURATION_MS, type: Prisma.sql`bigint` },
  score: { value: Prisma.sql`evaluation_runs.score`, type: Prisma.sql`float8` },
  label: { value: Prisma.sql`evaluation_runs.endpoint_label`, type: Prisma.sql`text` },
  finality: { value: Prisma.sql`evaluation_runs.finality`, type: Prisma.sql`text` },
  unit: { value: Prisma.sql`evaluation_runs.analysis_unit`, type: Prisma.sql`bigint` },
  toolCalls: { value: TOOL_CALL_COUNT, type: Prisma.sql`int` },
  openEffects: { value: Prisma.sql`evaluation_runs.open_effects`, type: Prisma.sql`int` },
};

/**
 * The query's filters (all but the text search) as SQL conditions on evaluation_runs. With `asOf`, only the runs stored by then;
 * its filters on the audit (finality, reason, tool) also keep the runs whose audit may have moved since (evidence recorded
 * later, a newer policy), for the caller to audit as of then and keep or drop (lib/share/frozen-runs.ts).
 */
function runConditions(evaluationId: string, query: EvaluationRunListFilters, asOf?: RunsAsOf): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [Prisma.sql`evaluation_id = ${evaluationId}::uuid`];
  if (asOf) conditions.push(Prisma.sql`created_at <= ${asOf.at}`);
  const movedSince =
    asOf &&
    Prisma.sql`(audit_policy_version <> ${asOf.policyVersion}
      OR EXISTS (SELECT 1 FROM evaluation_effect_resolutions s WHERE s.run_id = evaluation_runs.id AND s.recorded_at > ${asOf.at}))`;
  const onAudit = (condition: Prisma.Sql) => (movedSince ? Prisma.sql`(${condition} OR ${movedSince})` : condition);
  if (query.finality) conditions.push(onAudit(Prisma.sql`finality = ${query.finality}`));
  if (query.reason) conditions.push(onAudit(Prisma.sql`unresolved_reason = ${query.reason}`));
  if (query.tool) conditions.push(onAudit(Prisma.sql`unresolved_tool = ${query.tool}`));
  if (query.label)
    conditions.push(query.label === "none" ? Prisma.sql`endpoint_label IS NULL` : Prisma.sql`endpoint_label = ${query.label}`);
  if (query.unit) conditions.push(Prisma.sql`analysis_unit = ${query.unit}::bigint`);
  if (query.inherited) conditions.push(Prisma.sql`inherited_state = ${query.inherited}`);
  if (query.startedFrom) conditions.push(Prisma.sql`started_at >= ${query.startedFrom}::timestamptz`);
  if (query.startedTo) conditions.push(Prisma.sql`started_at <= ${query.startedTo}::timestamptz`);
  if (query.durationMin !== undefined) conditions.push(Prisma.sql`${DURATION_MS} >= ${query.durationMin}::bigint`);
  if (query.durationMax !== undefined) conditions.push(Prisma.sql`${DURATION_MS} <= ${query.durationMax}::bigint`);
  if (query.scoreMin !== undefined) conditions.push(Prisma.sql`score >= ${query.scoreMin}::float8`);
  if (query.scoreMax !== undefined) conditions.push(Prisma.sql`score <= ${query.scoreMax}::float8`);
  if (query.toolCallsMin !== undefined) conditions.push(Prisma.sql`${TOOL_CALL_COUNT} >= ${query.toolCallsMin}::int`);
  if (query.toolCallsMax !== undefined) conditions.push(Prisma.sql`${TOOL_CALL_COUNT} <= ${query.toolCallsMax}::int`);
  if (query.openEffectsMin !== undefined) conditions.push(Prisma.sql`open_effects >= ${query.openEffectsMin}::int`);
  if (query.openEffectsMax !== undefined) conditions.push(Prisma.sql`open_effects <= ${query.openEffectsMax}::int`);
  return conditions;
}

type EvaluationRunListFilters = Omit<EvaluationRunListQuery, "limit" | "cursor" | "sort" | "order">;

/**
 * Whether run `runId` holds the text: in its own row (id, task, tool calls' names, arguments and errors) or in its
 * transcript's chunks (messages, tool arguments and results). An aggregate, so that it is asked run by run on the primary
 * keys: as EXISTS, the planner may trade it for one scan of every transcript of every evaluation when it guesses the text
 * is rare.
 */
const holdsText = (runId: Prisma.Sql, pattern: string) =>
  Prisma.sql`(SELECT bool_or(hit) FROM (
      SELECT evaluation_run_search_text(r.external_id, r.task_id, r.tool_calls) ILIKE ${pattern} AS hit FROM evaluation_runs r WHERE r.id = ${runId}
      UNION ALL SELECT json_search_text(m.messages) ILIKE ${pattern} FROM evaluation_run_messages m WHERE m.run_id = ${runId}) AS parts)`;

/**
 * The text without its spaces and punctuation, as the trigram indexes read a run's text (migration runs_search_keys):
 * pg_trgm splits words at those, so "task-0" would ask for the trigrams of "task" alone, found in every run.
 */
const searchKey = (text: Prisma.Sql) => Prisma.sql`regexp_replace(${text}, '[^[:alnum:]]+', '', 'g')`;

/**
 * Every run of the evaluation holding the text: the two trigram indexes find the runs whose text holds it without
 * separators (every run holding it, and a few more), then the text itself is checked.
 */
const holdsTextByIndex = (evaluationId: string, text: string) => {
  // The key has no LIKE wildcards to escape: %, _ and \ are punctuation, gone from it.
  const key = Prisma.sql`'%' || ${searchKey(Prisma.sql`${text}::text`)} || '%'`;
  const pattern = likeContaining(text);
  const runText = Prisma.sql`evaluation_run_search_text(external_id, task_id, tool_calls)`;
  const messagesText = Prisma.sql`json_search_text(messages)`;
  return Prisma.sql`id IN (
    SELECT id FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND ${searchKey(runText)} ILIKE ${key} AND ${runText} ILIKE ${pattern}
    UNION SELECT run_id FROM evaluation_run_messages WHERE ${searchKey(messagesText)} ILIKE ${key} AND ${messagesText} ILIKE ${pattern})`;
};

/**
 * How many runs, in the list's order, a text search reads one by one before it asks the indexes. The indexes find a
 * rare text at once but collect every match before a page can be cut: a word in every transcript of a million runs
 * would be a million matches. Reading the next runs in order finds a common text's page in a few runs, and costs a
 * rare text only this window before the indexes answer (docs/evaluations.md, "Search").
 */
export const SEARCH_WINDOW_RUNS = 2_000;

const pageRow = runRow.extend({ sort_value: z.string().nullable() });

/**
 * The SQL of one page (at most `limit` runs) under `where`, in the sort's order, the run id breaking ties; each row
 * with its sort value (PostgreSQL's text of it, the cursor's) and `order`, the page's order on its own columns.
 */
function pageQuery(
  evaluationId: string,
  where: Prisma.Sql,
  sort: RunSort,
  desc: boolean,
  cursor: RunListCursor | undefined,
  limit: number,
) {
  if (sort === "stored") {
    // From the cursor, or else from the evaluation's own first (last) run: the planner may walk the primary key from its
    // end, through every run of the evaluations stored before (after) this one, a million after a bulk load.
    const after = cursor
      ? desc
        ? Prisma.sql`AND id < ${cursor[2]}::bigint`
        : Prisma.sql`AND id > ${cursor[2]}::bigint`
      : desc
        ? Prisma.sql`AND id <= (SELECT max(id) FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid)`
        : Prisma.sql`AND id >= (SELECT min(id) FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid)`;
    const direction = desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
    return {
      sql: Prisma.sql`SELECT ${RUN_COLUMNS}, NULL::text AS sort_value FROM evaluation_runs WHERE ${where} ${after} ORDER BY evaluation_runs.id ${direction} LIMIT ${limit}`,
      order: Prisma.sql`id::bigint ${direction}`,
    };
  }
  const key = SORT_KEYS[sort];
  const selected = (condition: Prisma.Sql, order: Prisma.Sql) =>
    Prisma.sql`(SELECT ${RUN_COLUMNS}, (${key.value})::text AS sort_value, (${key.value}) IS NULL AS sort_null, ${key.value} AS sort_key
                  FROM evaluation_runs WHERE ${where} AND ${condition} ORDER BY ${order} LIMIT ${limit})`;
  // Qualified: a bare id in ORDER BY is the selected id, its text.
  const ascending = Prisma.sql`${key.value} ASC, evaluation_runs.id ASC`;
  const descending = Prisma.sql`${key.value} DESC, evaluation_runs.id DESC`;
  // Each part is one range of the sort's index; the runs without a value are a range of their own (IS NULL).
  const parts: Prisma.Sql[] = [];
  if (!cursor) parts.push(selected(Prisma.sql`TRUE`, desc ? descending : ascending));
  else if (!desc && cursor[1] !== null) {
    parts.push(selected(Prisma.sql`(${key.value}, id) > (${cursor[1]}::${key.type}, ${cursor[2]}::bigint)`, ascending));
    parts.push(selected(Prisma.sql`${key.value} IS NULL`, ascending));
  } else if (!desc) parts.push(selected(Prisma.sql`${key.value} IS NULL AND id > ${cursor[2]}::bigint`, ascending));
  else if (cursor[1] === null) {
    parts.push(selected(Prisma.sql`${key.value} IS NULL AND id < ${cursor[2]}::bigint`, descending));
    parts.push(selected(Prisma.sql`${key.value} IS NOT NULL`, descending));
  } else parts.push(selected(Prisma.sql`(${key.value}, id) < (${cursor[1]}::${key.type}, ${cursor[2]}::bigint)`, descending));
  const order = desc ? Prisma.sql`sort_null DESC, sort_key DESC, id::bigint DESC` : Prisma.sql`sort_null ASC, sort_key ASC, id::bigint ASC`;
  return {
    sql: Prisma.sql`SELECT * FROM (${Prisma.join(parts, " UNION ALL ")}) AS page ORDER BY ${order} LIMIT ${limit}`,
    order,
  };
}

/**
 * One page of an evaluation's runs under the filters and text search, in the query's sort (stored order: by run id) and
 * order, the run id breaking ties: `{runs, nextCursor}`. A sort's runs without a value (no score, say) come last in
 * ascending order and first in descending, which is the ascending order reversed. Each page is a keyset range of an
 * index (evaluation_id, value, id): as fast on the last page of a million runs as on the first. A text search first reads
 * the next SEARCH_WINDOW_RUNS runs in order and keeps those holding the text; when they hold a page, that is the page
 * (the first matches in order are the first matches of all), and otherwise the indexes give every match.
 */
export async function listEvaluationRuns(
  db: Db,
  evaluationId: string,
  query: Omit<EvaluationRunListQuery, "limit" | "sort" | "order"> & { limit: number; sort?: RunSort; order?: "asc" | "desc" },
  { asOf, searchWindowRuns = SEARCH_WINDOW_RUNS }: { asOf?: RunsAsOf; searchWindowRuns?: number } = {},
): Promise<{ runs: EvaluationRunListItem[]; nextCursor: string | null }> {
  const sort = query.sort ?? "stored";
  const desc = query.order === "desc";
  const conditions = runConditions(evaluationId, query, asOf);
  const limit = query.limit + 1;
  const page = (where: Prisma.Sql[], size: number) => pageQuery(evaluationId, Prisma.join(where, " AND "), sort, desc, query.cursor, size);
  const readRows = async (sql: Prisma.Sql) => z.array(pageRow).parse(await db.$queryRaw(sql));
  let rows: z.infer<typeof pageRow>[];
  if (!query.q) rows = await readRows(page(conditions, limit).sql);
  else {
    const pattern = likeContaining(query.q);
    const window = page(conditions, searchWindowRuns);
    const found = z.array(pageRow.extend({ window_runs: z.coerce.number().int() })).parse(
      await db.$queryRaw`WITH win AS MATERIALIZED (${window.sql})
        SELECT win.*, (SELECT count(*) FROM win) AS window_runs
          FROM win CROSS JOIN LATERAL ${holdsText(Prisma.sql`win.id::bigint`, pattern)} AS matched (hit) WHERE matched.hit
         ORDER BY ${window.order} LIMIT ${limit}`,
    );
    const windowHoldsThePage = found.length === limit || (found[0] !== undefined && found[0].window_runs < searchWindowRuns);
    rows = windowHoldsThePage ? found : await readRows(page([...conditions, holdsTextByIndex(evaluationId, query.q)], limit).sql);
  }
  const shown = rows.slice(0, query.limit);
  const labels = await unitLabels(
    db,
    evaluationId,
    shown.map((r) => r.analysis_unit),
  );
  const runs = shown.map((r) => listItem(r, labels));
  const last = shown.at(-1);
  return {
    runs,
    nextCursor: rows.length > query.limit && last ? encodeCursor([sort, last.sort_value, last.id] satisfies RunListCursor) : null,
  };
}

/** U1, U2, …: an analysis unit's label within its evaluation, by the order of the units' first runs. */
export const unitLabelOf = (ordinal: number) => `U${ordinal}`;

const ordinalRows = z.array(z.object({ unit: z.string(), ordinal: z.coerce.number().int() }));

/**
 * `SELECT unit, ordinal` for the units that `named` selects (a unit's id is its first run's id): the evaluation's
 * first runs stored before it, counted, plus one. Each unit counts only the first runs since the unit before it, on the
 * index of first runs (evaluation_id, id WHERE analysis_unit = id), and a running sum adds them up: one pass up to the
 * largest unit named, with neither sort nor window over the runs it passes.
 */
const unitOrdinalsSql = (evaluationId: string, named: Prisma.Sql) => Prisma.sql`
  SELECT unit, (sum(since_previous) OVER (ORDER BY unit) + 1)::int AS ordinal FROM (
    SELECT unit, (SELECT count(*) FROM evaluation_runs f
                   WHERE f.evaluation_id = ${evaluationId}::uuid AND f.analysis_unit = f.id AND f.id < unit AND f.id >= coalesce(previous, 0)) AS since_previous
      FROM (SELECT unit, lag(unit) OVER (ORDER BY unit) AS previous FROM (SELECT DISTINCT unit FROM (${named}) AS named (unit) WHERE unit IS NOT NULL) AS units) AS gaps
  ) AS counted`;

/** The evaluation-local label of each unit named (unitOrdinalsSql). */
export async function unitLabels(db: SqlClient, evaluationId: string, units: readonly (string | null)[]): Promise<Map<string, string>> {
  const named = [...new Set(units.filter((u): u is string => u !== null))];
  if (named.length === 0) return new Map();
  const rows = ordinalRows.parse(
    await db.$queryRaw`SELECT unit::text, ordinal FROM (${unitOrdinalsSql(evaluationId, Prisma.sql`SELECT unnest(${named}::bigint[])`)}) AS o`,
  );
  return new Map(rows.map((r) => [r.unit, unitLabelOf(r.ordinal)]));
}
