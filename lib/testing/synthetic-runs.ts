// A large experiment for the dashboard benchmark (`npm run bench:dashboard`): runs generated inside
// PostgreSQL with INSERT … SELECT … FROM generate_series (one statement per test, no row leaves the
// server), with labels, exposures and measured delays as the paper's mechanism produces them
// (lib/replay/rules/expected-table2.ts), rare environment failures and protocol stops, small evidence
// JSON, the open-effects record of every scheduled write, and the implementation checks.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/prisma";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS, replayConfigSchema, type ReplayConfig } from "../replay/rules/config";
import { expectedRunCount } from "../replay/rules/grid";
import { PAPER_TRACE, routedWrites } from "../replay/rules/trace";

export type SyntheticGrid = Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions">;

const RUNS_PER_CELL = FINALITY_POLICIES.length + 2 * SEPARATION_CONDITIONS.length; // 18: one per policy, two per condition
const MAX_SCHEDULES = 100;
const MAX_REPETITIONS = 1_000;

/**
 * The smallest paper-shaped grid (delays 0, 25, 100, 250 ms, every policy and condition) with at
 * least `runs` runs: up to 100 schedules, then repetitions. 1,000,000 gives 100 schedules × 139
 * repetitions: 1,000,800 runs (a full grid has 18 runs per schedule, delay and repetition, so
 * exactly 10^6 is not a grid).
 */
export function gridForRuns(runs: number, delaysMs: number[] = [0, 25, 100, 250]): SyntheticGrid {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs: a positive integer, got ${runs}`);
  const perSchedule = RUNS_PER_CELL * delaysMs.length;
  const schedules = Math.min(MAX_SCHEDULES, Math.ceil(runs / perSchedule));
  const repetitions = Math.ceil(runs / (perSchedule * schedules));
  if (repetitions > MAX_REPETITIONS)
    throw new Error(`runs: at most ${perSchedule * MAX_SCHEDULES * MAX_REPETITIONS} with ${delaysMs.length} delays`);
  return { delaysMs, schedules, repetitions };
}

export interface SyntheticOptions {
  /** One unit in this many ends as an environment failure (0: none). Default 5,000. */
  environmentFailureEvery?: number;
  /** One unit in this many stops at the follow-up budget, its operation unresolved (0: none). Default 20,000. */
  protocolStopEvery?: number;
  /** Store the open-effects record of every scheduled write (about 0.6 per run). Default true. */
  openEffects?: boolean;
}

export interface SyntheticExperiment {
  experimentId: string;
  config: ReplayConfig;
  runs: number;
  openEffects: number;
  /** Wall time of each step, in milliseconds. */
  timings: { runsMs: number; openEffectsMs: number; checksMs: number; totalMs: number };
}

/** The implementation checks a passing replay stores (names and order of lib/replay/rules/checks.ts). */
const CHECK_NAMES = [
  "ack_precedes_application_at_nonzero_delay",
  "zero_delay_applied_before_ack",
  "never_applied_early",
  "cancelled_operation_never_commits",
  "late_cancellation_reports_completed",
  "sync_write_visible_on_return",
  "reconciliation_scored_after_terminal",
  "snapshot_scored_before_application",
  "harness_ahead_of_every_delay",
  "namespaces_disjoint",
  "verified_reset_reads_back_initial_value",
  "no_write_control_issued_no_operation",
  "b_scored_before_a_requested",
  "exposure_matches_service_timeline",
  "no_operation_left_pending",
  "open_effects_resolved_by_handle",
  "every_run_recorded_once",
];

/**
 * Per unit: a deterministic unit number `unit`, pseudo-random draws u1..u3 in [0, 1) from
 * hashint8, the environment-failure and protocol-stop flags, and the service-clock times.
 * Measured delay = nominal + overhead: a few microseconds, with a tail of up to 4 ms for 2 %
 * (docs/benchmarks.md, bench:replay).
 */
const UNIT_DRAWS = `
  (hashint8(unit * 4 + 1) & 2147483647)::float8 / 2147483648 AS u1,
  (hashint8(unit * 4 + 2) & 2147483647)::float8 / 2147483648 AS u2,
  (hashint8(unit * 4 + 3) & 2147483647)::float8 / 2147483648 AS u3,
  ($5::int > 0 AND (hashint8(unit * 4 + 4) & 2147483647) % GREATEST($5::int, 1) = 0) AS env_fail,
  ($6::int > 0 AND (hashint8(unit * 4 + 4) & 2147483647) % GREATEST($6::int, 1) = 1) AS budget_stop,
  (1000 + unit * 0.75)::float8 AS t0`;

const RUN_COLUMNS = `id, experiment_id, test, condition, task_id, group_id, schedule_id, delay_ms, repetition, role, namespace, key,
  endpoint_label, terminal_label, recorded_label, final_at_scoring, score, measured_delay_ms, exposure, classification, inherited_state,
  started_at_ms, endpoint_at_ms, scored_at_ms, ended_at_ms, evidence`;

/** Finality trials: $1 experiment, $2 delays, $3 schedules, $4 repetitions, $5/$6 failure rates, $7::text task, $8::text key, $9 policies. */
const FINALITY_SQL = `
INSERT INTO runs (${RUN_COLUMNS})
SELECT gen_random_uuid(), $1::uuid, 'finality', policy, $7::text, group_id, s, d, r, 'single', ns, $8::text,
       endpoint, terminal, recorded,
       CASE WHEN env_fail OR budget_stop THEN false WHEN policy = 'snapshot' THEN d = 0 ELSE true END,
       CASE recorded WHEN 'success' THEN 1 WHEN 'failure' THEN 0 END,
       measured, NULL, classification, 'none',
       t0, CASE WHEN NOT env_fail THEN t0 + 1.2 END, CASE WHEN NOT env_fail THEN scored END, t0 + d + 3.5,
       CASE WHEN env_fail THEN jsonb_build_object('kind', 'environment_failure', 'serviceFailures', jsonb_build_array(
              jsonb_build_object('request', 'POST /v1/writes', 'detail', 'connect ECONNREFUSED', 'atMs', t0, 'attempt', 0),
              jsonb_build_object('request', 'POST /v1/writes', 'detail', 'connect ECONNREFUSED', 'atMs', t0 + 50, 'attempt', 1)))
            ELSE jsonb_build_object('kind', 'finality', 'namespace', ns, 'key', $8::text, 'expectedValue', jsonb_build_object('groupId', group_id, 'role', 'single'),
              'ack', jsonb_build_object('handle', 'op_' || md5($1::text || group_id), 'status', CASE WHEN d > 0 AND policy NOT LIKE 'sync_%' THEN 'pending' ELSE 'completed' END,
                                       'acceptedAtMs', t0 + 0.4, 'dueAtMs', t0 + 0.4 + d),
              'terminal', jsonb_build_object('status', terminal_status, 'measuredDelayMs', measured),
              'scoredAtMs', scored, 'pendingAtEnd', 0, 'serviceFailures', '[]'::jsonb) END
  FROM (
    SELECT *, CASE WHEN env_fail THEN 'environment_failure' WHEN budget_stop THEN 'protocol_stop' ELSE 'completed' END AS classification,
           CASE WHEN env_fail OR budget_stop THEN NULL WHEN policy = 'verified_cancellation' AND d > 0 THEN NULL ELSE d + overhead END AS measured,
           CASE WHEN env_fail OR budget_stop THEN 'unresolved' WHEN policy = 'verified_cancellation' AND d > 0 THEN 'cancelled' ELSE 'completed' END AS terminal_status,
           CASE WHEN env_fail THEN 'unresolved' WHEN policy IN ('snapshot', 'sync_snapshot') THEN endpoint ELSE terminal END AS recorded,
           CASE WHEN policy = 'snapshot' THEN t0 + 1.2 ELSE t0 + d + 2.1 END AS scored
      FROM (
        SELECT *,
               CASE WHEN env_fail THEN NULL WHEN d > 0 AND policy NOT LIKE 'sync_%' THEN 'failure' ELSE 'success' END AS endpoint,
               CASE WHEN env_fail OR budget_stop THEN 'unresolved' WHEN policy = 'verified_cancellation' AND d > 0 THEN 'failure' ELSE 'success' END AS terminal,
               0.002 + 0.008 * u1 + CASE WHEN u2 < 0.02 THEN 4 * u3 ELSE 0 END AS overhead
          FROM (
            SELECT policy, d, s, r, ${UNIT_DRAWS},
                   'finality:' || policy || ':s' || s || ':d' || d || ':r' || r AS group_id,
                   'bl/' || $1::text || '/fin/' || policy || '/s' || s || '/d' || d || '/r' || r AS ns
              FROM (
                SELECT policy, d, s, r, ((((r - 1) * $3::int + (s - 1)) * cardinality($2::int[]) + (di - 1)) * 18 + pi - 1)::bigint AS unit
                  FROM generate_series(1, $4::int) r, generate_series(1, $3::int) s,
                       unnest($2::int[]) WITH ORDINALITY AS dl(d, di), unnest($9::text[]) WITH ORDINALITY AS pl(policy, pi)
              ) units
          ) drawn
      ) labelled
  ) final`;

/** Separation pairs, A and B: same parameters, $9 conditions. */
const SEPARATION_SQL = `
INSERT INTO runs (${RUN_COLUMNS})
SELECT gen_random_uuid(), $1::uuid, 'separation', condition, $7::text, group_id, s, d, r, role,
       CASE WHEN condition = 'namespaced' THEN pair_ns || '/' || role ELSE pair_ns END, $8::text,
       endpoint, terminal, terminal,
       CASE WHEN env_fail THEN false WHEN role = 'A' AND NOT writes THEN NULL ELSE true END,
       CASE terminal WHEN 'success' THEN 1 WHEN 'failure' THEN 0 END,
       CASE WHEN role = 'A' AND writes AND NOT env_fail THEN d + overhead END,
       CASE WHEN role = 'B' AND NOT env_fail THEN exposed END,
       CASE WHEN env_fail THEN 'environment_failure' ELSE 'completed' END,
       CASE WHEN role = 'B' AND condition IN ('shared', 'grouped') THEN 'internal' ELSE 'none' END,
       t0 + CASE role WHEN 'B' THEN 0.3 ELSE 0 END,
       CASE WHEN NOT env_fail THEN t0 + 1.1 END,
       CASE WHEN env_fail THEN NULL WHEN role = 'B' THEN t0 + d + 5.4 WHEN writes THEN t0 + d + 0.4 END,
       t0 + d + 5.4,
       CASE WHEN env_fail THEN jsonb_build_object('kind', 'environment_failure', 'serviceFailures', jsonb_build_array(
              jsonb_build_object('request', 'POST /v1/values/initialise', 'detail', 'socket hang up', 'atMs', t0, 'attempt', 0),
              jsonb_build_object('request', 'POST /v1/values/initialise', 'detail', 'socket hang up', 'atMs', t0 + 50, 'attempt', 1)))
            ELSE jsonb_build_object('kind', 'separation', 'namespaceA', CASE WHEN condition = 'namespaced' THEN pair_ns || '/A' ELSE pair_ns END,
              'namespaceB', CASE WHEN condition = 'namespaced' THEN pair_ns || '/B' ELSE pair_ns END, 'key', $8::text,
              'valueB', jsonb_build_object('initialisedBy', 'B', 'groupId', group_id),
              'aAck', CASE WHEN writes THEN jsonb_build_object('handle', 'op_' || md5($1::text || group_id), 'acceptedAtMs', t0 + 0.4, 'dueAtMs', t0 + 0.4 + d) END,
              'aTerminal', CASE WHEN writes THEN jsonb_build_object('status', 'completed', 'measuredDelayMs', d + overhead) END,
              'bScoringRead', jsonb_build_object('writtenBy', CASE WHEN exposed THEN 'op_' || md5($1::text || group_id) ELSE 'init' END, 'readAtMs', t0 + d + 5.4),
              'pendingAtEnd', 0, 'serviceFailures', '[]'::jsonb) END
  FROM (
    SELECT *,
           CASE WHEN env_fail THEN NULL WHEN role = 'B' THEN 'success' WHEN NOT writes THEN NULL
                WHEN d > 0 AND condition <> 'verified_reset' THEN 'failure' ELSE 'success' END AS endpoint,
           CASE WHEN env_fail THEN 'unresolved' WHEN role = 'A' AND NOT writes THEN NULL WHEN role = 'B' AND exposed THEN 'failure' ELSE 'success' END AS terminal
      FROM (
        SELECT *, condition <> 'no_write' AS writes, d > 0 AND condition IN ('shared', 'grouped') AS exposed,
               0.002 + 0.008 * u1 + CASE WHEN u2 < 0.02 THEN 4 * u3 ELSE 0 END AS overhead
          FROM (
            SELECT condition, d, s, r, ${UNIT_DRAWS},
                   'separation:' || condition || ':s' || s || ':d' || d || ':r' || r AS group_id,
                   'bl/' || $1::text || '/sep/' || condition || '/s' || s || '/d' || d || '/r' || r AS pair_ns
              FROM (
                SELECT condition, d, s, r, ((((r - 1) * $3::int + (s - 1)) * cardinality($2::int[]) + (di - 1)) * 18 + 6 + ci - 1)::bigint AS unit
                  FROM generate_series(1, $4::int) r, generate_series(1, $3::int) s,
                       unnest($2::int[]) WITH ORDINALITY AS dl(d, di), unnest($9::text[]) WITH ORDINALITY AS cl(condition, ci)
              ) units
          ) drawn
      ) pair CROSS JOIN (VALUES ('A'), ('B')) AS roles(role)
  ) unit_runs`;

/** The open-effects record of every scheduled write: finality trials and A of every writing pair, failures excepted. */
const OPEN_EFFECTS_SQL = `
INSERT INTO open_effects (id, experiment_id, run_id, task_id, group_id, trace_position, action, arguments, initiated_at_ms, resource, controller,
  observation_handle, endpoint_status, possible_transitions, relevant_until_ms, cross_run_route, terminal_status, terminal_evidence, resolved_at_ms)
SELECT gen_random_uuid(), experiment_id, id, task_id, group_id, $2::int, $3::text, $4::jsonb, started_at_ms + 0.4,
       'http://127.0.0.1:4100/v1/values?namespace=' || namespace || '&key=' || key, 'delayed-write service',
       'op_' || md5(experiment_id::text || group_id), endpoint_status,
       jsonb_build_object('from', endpoint_status, 'to', CASE WHEN endpoint_status = 'pending' THEN '["completed","failed","cancelled"]'::jsonb ELSE '[]'::jsonb END),
       started_at_ms + 0.4 + delay_ms,
       CASE WHEN test = 'finality' THEN 'none: namespace ' || namespace || ' belongs to this trial alone'
            WHEN condition IN ('shared', 'grouped') THEN 'shared key ' || key || ' in ' || namespace || ': reaches B'
            ELSE 'blocked: ' || condition END,
       terminal_status,
       jsonb_build_object('operation', jsonb_build_object('status', terminal_status, 'measuredDelayMs', measured_delay_ms), 'read', NULL, 'cancelOutcome',
                          CASE WHEN condition LIKE '%verified_cancellation' THEN CASE WHEN terminal_status = 'cancelled' THEN 'cancelled' ELSE 'completed' END END),
       CASE WHEN terminal_status <> 'unresolved' THEN started_at_ms + 0.4 + delay_ms END
  FROM (
    SELECT *, CASE WHEN delay_ms > 0 AND condition NOT LIKE 'sync_%' THEN 'pending' ELSE 'completed' END AS endpoint_status,
              CASE WHEN terminal_label = 'unresolved' THEN 'unresolved' WHEN condition = 'verified_cancellation' AND delay_ms > 0 THEN 'cancelled' ELSE 'completed' END AS terminal_status
      FROM runs
     WHERE experiment_id = $1::uuid AND classification <> 'environment_failure' AND (role = 'single' OR (role = 'A' AND condition <> 'no_write'))
  ) scheduled`;

/**
 * Creates a completed experiment on `grid` (every policy and condition) and fills it in a few
 * statements. Returns its id, the counts and the time of each step.
 */
export async function loadSyntheticExperiment(db: Db, grid: SyntheticGrid, options: SyntheticOptions = {}): Promise<SyntheticExperiment> {
  const config = replayConfigSchema.parse({ ...grid });
  const environmentFailureEvery = options.environmentFailureEvery ?? 5_000;
  const protocolStopEvery = options.protocolStopEvery ?? 20_000;
  const [write] = routedWrites(PAPER_TRACE) as [ReturnType<typeof routedWrites>[number]];
  const started = performance.now();
  // Only the columns the first migrations have, in SQL: Prisma's insert names every column with a
  // default, and the run_summary migration's test loads this into a database migrated only that far.
  const experimentId = randomUUID();
  await db.$executeRaw`
    INSERT INTO experiments (id, state, config, service, started_at)
    VALUES (${experimentId}::uuid, 'running', ${JSON.stringify(config)}::jsonb, ${JSON.stringify({ url: "http://127.0.0.1:4100", timeOrigin: Date.now() })}::jsonb, now())`;
  const params = [
    experimentId,
    config.delaysMs,
    config.schedules,
    config.repetitions,
    environmentFailureEvery,
    protocolStopEvery,
    PAPER_TRACE.taskId,
    write.key,
  ] as const;

  const runsStarted = performance.now();
  const finality = await db.$executeRawUnsafe(FINALITY_SQL, ...params, [...config.finalityPolicies]);
  const separation = await db.$executeRawUnsafe(SEPARATION_SQL, ...params, [...config.separationConditions]);
  const runs = finality + separation;
  const expected = expectedRunCount(config);
  if (runs !== expected) throw new Error(`loaded ${runs} runs, the grid has ${expected}`);

  const effectsStarted = performance.now();
  const openEffects =
    options.openEffects === false
      ? 0
      : await db.$executeRawUnsafe(
          OPEN_EFFECTS_SQL,
          experimentId,
          write.tracePosition,
          write.call.function,
          JSON.stringify(write.call.args),
        );

  const checksStarted = performance.now();
  await db.implementationCheck.createMany({
    data: CHECK_NAMES.map((name, position) => ({
      experimentId,
      position,
      name,
      passed: true,
      evidence: `${runs}/${runs} cases (synthetic load)`,
    })),
  });
  const finishedAt = new Date();
  await db.experiment.update({
    where: { id: experimentId },
    data: { state: "completed", finishedAt, wallMs: performance.now() - started },
    select: { id: true },
  });
  const done = performance.now();
  return {
    experimentId,
    config,
    runs,
    openEffects,
    timings: {
      runsMs: effectsStarted - runsStarted,
      openEffectsMs: checksStarted - effectsStarted,
      checksMs: done - checksStarted,
      totalMs: done - started,
    },
  };
}
