// Open-effects records (paper Table C.1) across experiments, unresolved first: filtered and counted in
// SQL, keyset-paginated on (resolved, experiment, initiation time, id), which the index
// open_effects_unresolved_first_idx serves.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { Prisma } from "../../generated/prisma/client";
import { ENDPOINT_STATUSES, TERMINAL_STATUSES, type EffectCursor, type EffectFilters } from "./filters";
import { encodeCursor } from "../../http/pagination";
import { wallClock } from "./runs";
import { rowsOf } from "../../db/rows";

const effectRowSchema = z.object({
  id: z.string(),
  experiment_id: z.string(),
  run_id: z.string(),
  run_condition: z.string(),
  run_schedule_id: z.number(),
  run_delay_ms: z.number(),
  run_repetition: z.number(),
  run_role: z.string(),
  task_id: z.string(),
  group_id: z.string(),
  trace_position: z.number(),
  action: z.string(),
  arguments: z.unknown(),
  initiated_at_ms: z.number(),
  resource: z.string(),
  controller: z.string(),
  observation_handle: z.string(),
  endpoint_status: z.enum(ENDPOINT_STATUSES),
  possible_transitions: z.unknown(),
  relevant_until_ms: z.number().nullable(),
  cross_run_route: z.string(),
  terminal_status: z.enum(TERMINAL_STATUSES),
  terminal_evidence: z.unknown(),
  resolved_at_ms: z.number().nullable(),
  time_origin: z.number().nullable(),
});

/** One open-effects record with every Table C.1 field and the run it belongs to. Service-clock ms; wall-clock ISO. */
export interface EffectListRow {
  id: string;
  experimentId: string;
  runId: string;
  runCondition: string;
  runScheduleId: number;
  runDelayMs: number;
  runRepetition: number;
  runRole: string;
  taskId: string;
  groupId: string;
  tracePosition: number;
  action: string;
  arguments: unknown;
  initiatedAtMs: number;
  resource: string;
  controller: string;
  observationHandle: string;
  endpointStatus: (typeof ENDPOINT_STATUSES)[number];
  possibleTransitions: unknown;
  relevantUntilMs: number | null;
  crossRunRoute: string;
  terminalStatus: (typeof TERMINAL_STATUSES)[number];
  /** The system evidence that resolved the record (the operation read by its handle). */
  terminalEvidence: unknown;
  resolvedAtMs: number | null;
  /** Wall-clock times from the service's clock origin; null when the experiment recorded none. */
  initiatedAt: string | null;
  resolvedAt: string | null;
}

export const EFFECT_EXPORT_COLUMNS = [
  "id",
  "experimentId",
  "runId",
  "runCondition",
  "runScheduleId",
  "runDelayMs",
  "runRepetition",
  "runRole",
  "taskId",
  "groupId",
  "tracePosition",
  "action",
  "arguments",
  "initiatedAtMs",
  "resource",
  "controller",
  "observationHandle",
  "endpointStatus",
  "possibleTransitions",
  "relevantUntilMs",
  "crossRunRoute",
  "terminalStatus",
  "terminalEvidence",
  "resolvedAtMs",
  "initiatedAt",
  "resolvedAt",
] as const satisfies readonly (keyof EffectListRow)[];

export interface EffectPage {
  effects: EffectListRow[];
  nextCursor: string | null;
  /** Every record matching the filters, and how many of them are unresolved, counted in SQL. */
  total: number;
  unresolved: number;
}

function toListRow(raw: unknown): EffectListRow {
  const e = effectRowSchema.parse(raw);
  return {
    id: e.id,
    experimentId: e.experiment_id,
    runId: e.run_id,
    runCondition: e.run_condition,
    runScheduleId: e.run_schedule_id,
    runDelayMs: e.run_delay_ms,
    runRepetition: e.run_repetition,
    runRole: e.run_role,
    taskId: e.task_id,
    groupId: e.group_id,
    tracePosition: e.trace_position,
    action: e.action,
    arguments: e.arguments,
    initiatedAtMs: e.initiated_at_ms,
    resource: e.resource,
    controller: e.controller,
    observationHandle: e.observation_handle,
    endpointStatus: e.endpoint_status,
    possibleTransitions: e.possible_transitions,
    relevantUntilMs: e.relevant_until_ms,
    crossRunRoute: e.cross_run_route,
    terminalStatus: e.terminal_status,
    terminalEvidence: e.terminal_evidence,
    resolvedAtMs: e.resolved_at_ms,
    initiatedAt: wallClock(e.time_origin, e.initiated_at_ms),
    resolvedAt: wallClock(e.time_origin, e.resolved_at_ms),
  };
}

function effectsWhere(filters: EffectFilters): Prisma.Sql {
  const clauses = [Prisma.sql`TRUE`];
  if (filters.experiment) clauses.push(Prisma.sql`e.experiment_id = ${filters.experiment}::uuid`);
  if (filters.terminal) clauses.push(Prisma.sql`e.terminal_status = ${filters.terminal}`);
  if (filters.endpoint) clauses.push(Prisma.sql`e.endpoint_status = ${filters.endpoint}`);
  return Prisma.join(clauses, " AND ");
}

const positionOf = (row: EffectListRow): EffectCursor => [row.terminalStatus !== "unresolved", row.experimentId, row.initiatedAtMs, row.id];

async function effectsAfter(db: Db, where: Prisma.Sql, cursor: EffectCursor | undefined, limit: number): Promise<EffectListRow[]> {
  // false sorts before true: unresolved records come first. The expression matches the index's.
  const after = cursor
    ? Prisma.sql`AND ((e.terminal_status <> 'unresolved'), e.experiment_id, e.initiated_at_ms, e.id) > (${cursor[0]}::boolean, ${cursor[1]}::uuid, ${cursor[2]}::float8, ${cursor[3]}::uuid)`
    : Prisma.empty;
  const rows = await db.$queryRaw<unknown[]>`
    SELECT e.id::text AS id, e.experiment_id::text AS experiment_id, e.run_id::text AS run_id,
           r.condition AS run_condition, r.schedule_id AS run_schedule_id, r.delay_ms AS run_delay_ms, r.repetition AS run_repetition, r.role AS run_role,
           e.task_id, e.group_id, e.trace_position, e.action, e.arguments, e.initiated_at_ms, e.resource, e.controller,
           e.observation_handle, e.endpoint_status, e.possible_transitions, e.relevant_until_ms, e.cross_run_route,
           e.terminal_status, e.terminal_evidence, e.resolved_at_ms, (x.service ->> 'timeOrigin')::float8 AS time_origin
      FROM open_effects e
      JOIN runs r ON r.id = e.run_id
      JOIN experiments x ON x.id = e.experiment_id
     WHERE ${where} ${after}
     ORDER BY (e.terminal_status <> 'unresolved'), e.experiment_id, e.initiated_at_ms, e.id
     LIMIT ${limit}::int`;
  return rows.map(toListRow);
}

async function countEffects(db: Db, where: Prisma.Sql): Promise<{ total: number; unresolved: number }> {
  const [row] = rowsOf(
    z.object({ total: z.bigint(), unresolved: z.bigint() }),
    await db.$queryRaw`
    SELECT count(*) AS total, count(*) FILTER (WHERE e.terminal_status = 'unresolved') AS unresolved FROM open_effects e WHERE ${where}`,
  );
  return { total: Number(row?.total ?? 0), unresolved: Number(row?.unresolved ?? 0) };
}

/** One page of open-effects records matching the filters, unresolved first, with the counts. */
export async function listEffects(db: Db, query: { filters: EffectFilters; cursor?: EffectCursor; limit: number }): Promise<EffectPage> {
  const where = effectsWhere(query.filters);
  const [rows, counts] = await Promise.all([effectsAfter(db, where, query.cursor, query.limit + 1), countEffects(db, where)]);
  const effects = rows.slice(0, query.limit);
  const last = effects.at(-1);
  return { effects, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last)) : null, ...counts };
}

/** Every matching record, one keyset page at a time (bounded memory for exports). */
export async function* effectBatches(db: Db, filters: EffectFilters, batchSize = 500): AsyncGenerator<EffectListRow[]> {
  const where = effectsWhere(filters);
  let cursor: EffectCursor | undefined;
  for (;;) {
    const rows = await effectsAfter(db, where, cursor, batchSize);
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (rows.length < batchSize || !last) return;
    cursor = positionOf(last);
  }
}

/** The experiments that left open-effects records, newest first: the choices of the experiment filter. */
export async function experimentsWithEffects(db: Db, limit = 100): Promise<{ id: string; name: string | null; createdAt: string }[]> {
  const rows = rowsOf(
    z.object({ id: z.string(), name: z.string().nullable(), created_at: z.date() }),
    await db.$queryRaw`
    SELECT x.id::text AS id, x.name, x.created_at FROM experiments x
     WHERE EXISTS (SELECT 1 FROM open_effects e WHERE e.experiment_id = x.id)
     ORDER BY x.created_at DESC, x.id DESC LIMIT ${limit}::int`,
  );
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at.toISOString() }));
}
