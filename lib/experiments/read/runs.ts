// The runs of an experiment: filtered in SQL, counted in SQL, keyset-paginated in the order of the
// runs' natural key (the unique index runs_natural_key), which is total within an experiment.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { Prisma, type OpenEffect } from "../../generated/prisma/client";
import { RUN_CLASSIFICATIONS } from "../../replay/rules/classification";
import { disagreesSql } from "../../replay/rules/labels";
import { agreementOf, explainRun, type RunExplanation } from "./explain";
import { RUN_CONDITIONS, RUN_ROLES, type RunCursor, type RunFilters } from "./filters";
import { encodeCursor } from "../../http/pagination";
import { runTimeline, writeIntervals, type TimelineEvent, type WriteInterval } from "./timeline";
import { existsAnswer, rowsOf } from "../../db/rows";

const DISAGREES = Prisma.raw(disagreesSql("r.endpoint_label", "r.terminal_label"));
const AGREES = Prisma.sql`(r.endpoint_label IS NOT NULL AND r.terminal_label IS NOT NULL AND NOT ${DISAGREES})`;

const nullableText = z.string().nullable();
const nullableMs = z.number().nullable();

const runRowSchema = z.object({
  id: z.string(),
  experiment_id: z.string(),
  test: z.enum(["finality", "separation"]),
  condition: z.enum(RUN_CONDITIONS),
  schedule_id: z.number(),
  delay_ms: z.number(),
  repetition: z.number(),
  role: z.enum(RUN_ROLES),
  task_id: z.string(),
  endpoint_label: nullableText,
  terminal_label: nullableText,
  recorded_label: nullableText,
  final_at_scoring: z.boolean().nullable(),
  score: z.number().nullable(),
  measured_delay_ms: nullableMs,
  exposure: z.boolean().nullable(),
  classification: z.enum(RUN_CLASSIFICATIONS),
  inherited_state: z.string(),
  started_at_ms: z.number(),
  endpoint_at_ms: nullableMs,
  scored_at_ms: nullableMs,
  ended_at_ms: nullableMs,
  time_origin: nullableMs,
  created_at: z.date(),
});

/** One run as the list, the API and the exports show it. Service-clock times in ms; wall-clock times as ISO strings. */
export interface RunListRow {
  id: string;
  experimentId: string;
  test: "finality" | "separation";
  condition: (typeof RUN_CONDITIONS)[number];
  scheduleId: number;
  delayMs: number;
  repetition: number;
  role: (typeof RUN_ROLES)[number];
  /** The replayed trace's task (`banking/user_task_3`). */
  taskId: string;
  endpointLabel: string | null;
  terminalLabel: string | null;
  recordedLabel: string | null;
  agreement: "agree" | "disagree" | null;
  exposure: boolean | null;
  classification: (typeof RUN_CLASSIFICATIONS)[number];
  finalAtScoring: boolean | null;
  score: number | null;
  inheritedState: string;
  measuredDelayMs: number | null;
  startedAtMs: number;
  endpointAtMs: number | null;
  scoredAtMs: number | null;
  endedAtMs: number | null;
  /** Wall-clock start, from the service's clock origin; null when the experiment recorded none. */
  startedAt: string | null;
  /** When the run was stored. */
  createdAt: string;
}

/** The export's columns, in order: every field of a list row. */
export const RUN_EXPORT_COLUMNS = [
  "id",
  "experimentId",
  "test",
  "condition",
  "scheduleId",
  "delayMs",
  "repetition",
  "role",
  "endpointLabel",
  "terminalLabel",
  "recordedLabel",
  "agreement",
  "exposure",
  "classification",
  "finalAtScoring",
  "score",
  "inheritedState",
  "measuredDelayMs",
  "startedAtMs",
  "endpointAtMs",
  "scoredAtMs",
  "endedAtMs",
  "startedAt",
  "createdAt",
] as const satisfies readonly (keyof RunListRow)[];

export interface RunPage {
  runs: RunListRow[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
  /** Every run matching the filters, counted in SQL. */
  total: number;
}

const RUN_COLUMNS = Prisma.sql`
  r.id::text AS id, r.experiment_id::text AS experiment_id, r.test, r.condition, r.schedule_id, r.delay_ms, r.repetition, r.role, r.task_id,
  r.endpoint_label, r.terminal_label, r.recorded_label, r.final_at_scoring, r.score, r.measured_delay_ms, r.exposure,
  r.classification, r.inherited_state, r.started_at_ms, r.endpoint_at_ms, r.scored_at_ms, r.ended_at_ms, r.created_at,
  (x.service ->> 'timeOrigin')::float8 AS time_origin`;

/** Service-clock ms to wall-clock ISO time, through the service's clock origin (epoch ms). */
export const wallClock = (timeOrigin: number | null, serviceMs: number | null) =>
  timeOrigin === null || serviceMs === null ? null : new Date(timeOrigin + serviceMs).toISOString();

function toListRow(raw: unknown): RunListRow {
  const r = runRowSchema.parse(raw);
  return {
    id: r.id,
    experimentId: r.experiment_id,
    test: r.test,
    condition: r.condition,
    scheduleId: r.schedule_id,
    delayMs: r.delay_ms,
    repetition: r.repetition,
    role: r.role,
    taskId: r.task_id,
    endpointLabel: r.endpoint_label,
    terminalLabel: r.terminal_label,
    recordedLabel: r.recorded_label,
    agreement: agreementOf(r.endpoint_label, r.terminal_label),
    exposure: r.exposure,
    classification: r.classification,
    finalAtScoring: r.final_at_scoring,
    score: r.score,
    inheritedState: r.inherited_state,
    measuredDelayMs: r.measured_delay_ms,
    startedAtMs: r.started_at_ms,
    endpointAtMs: r.endpoint_at_ms,
    scoredAtMs: r.scored_at_ms,
    endedAtMs: r.ended_at_ms,
    startedAt: wallClock(r.time_origin, r.started_at_ms),
    createdAt: r.created_at.toISOString(),
  };
}

/** The WHERE clause of an experiment's runs under the filters (aliased `r`). */
function runsWhere(experimentId: string, filters: RunFilters): Prisma.Sql {
  const clauses = [Prisma.sql`r.experiment_id = ${experimentId}::uuid`];
  if (filters.condition) clauses.push(Prisma.sql`r.condition = ${filters.condition}`);
  if (filters.delay !== undefined) clauses.push(Prisma.sql`r.delay_ms = ${filters.delay}::int`);
  if (filters.role) clauses.push(Prisma.sql`r.role = ${filters.role}`);
  if (filters.label)
    clauses.push(filters.label === "none" ? Prisma.sql`r.recorded_label IS NULL` : Prisma.sql`r.recorded_label = ${filters.label}`);
  // The disagreement rule's own SQL (labels.ts): a run missing either label neither agrees nor disagrees.
  if (filters.agreement) clauses.push(filters.agreement === "agree" ? AGREES : DISAGREES);
  if (filters.exposure) clauses.push(Prisma.sql`r.exposure = ${filters.exposure === "exposed"}::boolean`);
  if (filters.classification) clauses.push(Prisma.sql`r.classification = ${filters.classification}`);
  return Prisma.join(clauses, " AND ");
}

const positionOf = (row: RunListRow): RunCursor => [row.condition, row.scheduleId, row.delayMs, row.repetition, row.role, row.taskId];

/** Up to `limit` runs after the cursor, in natural-key order. */
async function runsAfter(db: Db, where: Prisma.Sql, cursor: RunCursor | undefined, limit: number): Promise<RunListRow[]> {
  const after = cursor
    ? Prisma.sql`AND (r.condition, r.schedule_id, r.delay_ms, r.repetition, r.role, r.task_id) > (${cursor[0]}, ${cursor[1]}::int, ${cursor[2]}::int, ${cursor[3]}::int, ${cursor[4]}, ${cursor[5]})`
    : Prisma.empty;
  const rows = await db.$queryRaw<unknown[]>`
    SELECT ${RUN_COLUMNS}
      FROM runs r JOIN experiments x ON x.id = r.experiment_id
     WHERE ${where} ${after}
     ORDER BY r.condition, r.schedule_id, r.delay_ms, r.repetition, r.role, r.task_id
     LIMIT ${limit}::int`;
  return rows.map(toListRow);
}

async function countRuns(db: Db, where: Prisma.Sql): Promise<number> {
  const [row] = rowsOf(z.object({ total: z.bigint() }), await db.$queryRaw`SELECT count(*) AS total FROM runs r WHERE ${where}`);
  return Number(row?.total ?? 0);
}

/** One page of an experiment's runs matching the filters, and how many match in all. */
export async function listRuns(
  db: Db,
  experimentId: string,
  query: { filters: RunFilters; cursor?: RunCursor; limit: number },
): Promise<RunPage> {
  const where = runsWhere(experimentId, query.filters);
  // One row more than the page tells whether another page follows, without a second query.
  const [rows, total] = await Promise.all([runsAfter(db, where, query.cursor, query.limit + 1), countRuns(db, where)]);
  const runs = rows.slice(0, query.limit);
  const last = runs.at(-1);
  return { runs, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last)) : null, total };
}

/** Every matching run, one keyset page at a time, so that an export of any size holds one batch in memory. */
export async function* runBatches(db: Db, experimentId: string, filters: RunFilters, batchSize = 500): AsyncGenerator<RunListRow[]> {
  const where = runsWhere(experimentId, filters);
  let cursor: RunCursor | undefined;
  for (;;) {
    const rows = await runsAfter(db, where, cursor, batchSize);
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (rows.length < batchSize || !last) return;
    cursor = positionOf(last);
  }
}

// The existence checks and the paired run in raw SQL: every run page asks them, and Prisma compiles a
// model query on every call (~0.5 ms of CPU).
const pairedRow = z.object({ id: z.string(), role: z.string() });

export async function runExists(db: Db, runId: string): Promise<boolean> {
  return existsAnswer(await db.$queryRaw`SELECT EXISTS (SELECT 1 FROM runs WHERE id = ${runId}::uuid) AS exists`);
}

export async function experimentExists(db: Db, experimentId: string): Promise<boolean> {
  return existsAnswer(await db.$queryRaw`SELECT EXISTS (SELECT 1 FROM experiments WHERE id = ${experimentId}::uuid) AS exists`);
}

/** The experiment a runs view belongs to, with the grid its filter choices come from; null when unknown. */
export async function runsViewExperiment(
  db: Db,
  experimentId: string,
): Promise<{ id: string; name: string | null; state: string; delaysMs: number[]; conditions: string[] } | null> {
  const experiment = await db.experiment.findUnique({
    where: { id: experimentId },
    select: { id: true, name: true, state: true, config: true },
  });
  if (!experiment) return null;
  // Read forgivingly: an odd stored config still lists its runs, with every choice offered.
  const grid = z
    .object({ delaysMs: z.array(z.number()), finalityPolicies: z.array(z.string()), separationConditions: z.array(z.string()) })
    .safeParse(experiment.config);
  return {
    id: experiment.id,
    name: experiment.name,
    state: experiment.state,
    delaysMs: grid.success ? [...grid.data.delaysMs].sort((a, b) => a - b) : [],
    conditions: grid.success ? [...grid.data.finalityPolicies, ...grid.data.separationConditions] : [...RUN_CONDITIONS],
  };
}

export interface RunDetail {
  run: RunListRow & { groupId: string; namespace: string; key: string; evidence: unknown };
  experiment: { id: string; name: string | null; state: string };
  /** Every open-effects record the run left (paper Table C.1), all columns. */
  openEffects: OpenEffect[];
  /** For a separation run: the other run of its pair (same experiment and group). */
  pairedRun: { id: string; role: string } | null;
  timeline: TimelineEvent[];
  /** Every write of the run (each state-changing call of its trace), with its open interval and resolution. */
  writes: WriteInterval[];
  explanation: RunExplanation;
}

const detailRowSchema = z.object({
  group_id: z.string(),
  namespace: z.string(),
  key: z.string(),
  evidence: z.unknown(),
  experiment_state: z.string(),
  experiment_name: z.string().nullable(),
});

/** One run with its open effects, paired run, timeline and explanation; null when there is no such run. */
export async function loadRunDetail(db: Db, runId: string): Promise<RunDetail | null> {
  const [raw] = await db.$queryRaw<unknown[]>`
    SELECT ${RUN_COLUMNS}, r.group_id, r.namespace, r.key, r.evidence, x.state AS experiment_state, x.name AS experiment_name
      FROM runs r JOIN experiments x ON x.id = r.experiment_id
     WHERE r.id = ${runId}::uuid`;
  if (!raw) return null;
  const row = toListRow(raw);
  const extra = detailRowSchema.parse(raw);
  const [openEffects, pairedRun] = await Promise.all([
    db.openEffect.findMany({ where: { runId }, orderBy: [{ tracePosition: "asc" }, { id: "asc" }] }),
    row.test === "separation"
      ? db.$queryRaw`SELECT id::text AS id, role FROM runs
                      WHERE experiment_id = ${row.experimentId}::uuid AND group_id = ${extra.group_id} AND role = ${row.role === "A" ? "B" : "A"}
                      LIMIT 1`.then((rows) => rowsOf(pairedRow, rows)[0] ?? null)
      : null,
  ]);
  return {
    run: { ...row, groupId: extra.group_id, namespace: extra.namespace, key: extra.key, evidence: extra.evidence },
    experiment: { id: row.experimentId, name: extra.experiment_name, state: extra.experiment_state },
    openEffects,
    pairedRun,
    timeline: runTimeline({ ...row, evidence: extra.evidence }),
    writes: writeIntervals({ ...row, evidence: extra.evidence }),
    explanation: explainRun({ ...row, evidence: extra.evidence }),
  };
}
