-- CreateTable
CREATE TABLE "run_summary_cells" (
    "experiment_id" UUID NOT NULL,
    "test" TEXT NOT NULL,
    "condition" TEXT NOT NULL,
    "delay_ms" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "classification" TEXT NOT NULL,
    "runs" BIGINT NOT NULL,
    "successes" BIGINT NOT NULL,
    "disagreements" BIGINT NOT NULL,
    "exposures" BIGINT NOT NULL,
    "unresolved" BIGINT NOT NULL,
    "score_sum" BIGINT NOT NULL,
    "score_n" BIGINT NOT NULL,
    "measured_n" BIGINT NOT NULL,

    CONSTRAINT "run_summary_cells_pkey" PRIMARY KEY ("experiment_id","test","condition","delay_ms","role","classification")
);

-- CreateTable
CREATE TABLE "run_summary_groups" (
    "experiment_id" UUID NOT NULL,
    "test" TEXT NOT NULL,
    "condition" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "runs" INTEGER NOT NULL,

    CONSTRAINT "run_summary_groups_pkey" PRIMARY KEY ("experiment_id","test","condition","group_id")
);

-- CreateTable
CREATE TABLE "run_summary_group_counts" (
    "experiment_id" UUID NOT NULL,
    "test" TEXT NOT NULL,
    "condition" TEXT NOT NULL,
    "groups" BIGINT NOT NULL,

    CONSTRAINT "run_summary_group_counts_pkey" PRIMARY KEY ("experiment_id","test","condition")
);

-- AddForeignKey
ALTER TABLE "run_summary_cells" ADD CONSTRAINT "run_summary_cells_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "run_summary_groups" ADD CONSTRAINT "run_summary_groups_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "run_summary_group_counts" ADD CONSTRAINT "run_summary_group_counts_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE RESTRICT;



-- Hand-written: the experiment summary at scale (lib/replay/summary.ts, docs in schema.prisma).
--
-- NOTE on how this file is applied: Prisma's driver adapter (@prisma/adapter-pg executeScript)
-- splits a migration at every semicolon character and runs the pieces one by one, each in its own
-- transaction. So no comment here may contain that character, and the PL/pgSQL bodies below spell
-- it as the look-alike U+204F (⁏), which run_summary_migration_exec turns back into chr(59) before
-- running them. The install step (triggers and backfill) is one statement, hence one transaction.

-- Exact measured-delay percentiles: per nominal delay, the k-th smallest measured delay is read
-- from this index with ORDER BY … OFFSET k LIMIT 2 (or from the top for the p99).
CREATE INDEX "runs_measured_delay_idx" ON "runs" ("experiment_id", "delay_ms", "measured_delay_ms") WHERE "measured_delay_ms" IS NOT NULL;

-- That walk reads the visibility map to skip the heap: let autovacuum set it after 1 % new rows
-- rather than the default 20 % (runs are inserted, hardly ever updated, so each pass is short).
ALTER TABLE "runs" SET (autovacuum_vacuum_insert_scale_factor = 0.01);

-- Runs a statement whose text spells semicolons as U+204F (see the note above). Dropped at the end.
CREATE FUNCTION run_summary_migration_exec(statement text) RETURNS void LANGUAGE plpgsql AS E'BEGIN EXECUTE replace(statement, chr(8271), chr(59))\073 END';

-- The trigger function of INSERT, UPDATE and DELETE on runs, once per statement, from its
-- transition tables: every row of new_runs counts +1 and every row of old_runs counts -1 in its
-- cell, group and group count, in the writer's own transaction. Deltas of an experiment that is
-- being deleted (the cascade from experiments) are skipped: its summary rows go with it.
-- Rows are upserted in key order, so that concurrent writers lock them in the same order. A count
-- that would become impossible (a summary out of step with its runs) fails the writer's statement.
-- (No CHECK constraints: PostgreSQL checks them on the proposed row of an upsert, here a delta.)
SELECT run_summary_migration_exec($install$
CREATE FUNCTION run_summary_maintain() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, r.* FROM new_runs r'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, r.* FROM old_runs r'
    ELSE 'SELECT 1 AS sign, r.* FROM new_runs r UNION ALL SELECT -1 AS sign, r.* FROM old_runs r'
  END⁏
  broken bigint⁏
BEGIN
  EXECUTE format($sql$
    WITH upserted AS (
    INSERT INTO run_summary_cells AS c (experiment_id, test, condition, delay_ms, role, classification,
                                        runs, successes, disagreements, exposures, unresolved, score_sum, score_n, measured_n)
    SELECT * FROM (
      SELECT experiment_id, test, condition, delay_ms, role, classification,
             sum(sign) AS runs,
             sum(CASE WHEN recorded_label = 'success' THEN sign ELSE 0 END) AS successes,
             sum(CASE WHEN endpoint_label IS NOT NULL AND terminal_label IS NOT NULL AND endpoint_label <> terminal_label THEN sign ELSE 0 END) AS disagreements,
             sum(CASE WHEN exposure THEN sign ELSE 0 END) AS exposures,
             sum(CASE WHEN terminal_label = 'unresolved' THEN sign ELSE 0 END) AS unresolved,
             sum(CASE WHEN score IS NOT NULL THEN sign * score ELSE 0 END) AS score_sum,
             sum(CASE WHEN score IS NOT NULL THEN sign ELSE 0 END) AS score_n,
             sum(CASE WHEN measured_delay_ms IS NOT NULL THEN sign ELSE 0 END) AS measured_n
        FROM (%s) changed
       GROUP BY experiment_id, test, condition, delay_ms, role, classification
    ) delta
     WHERE (runs, successes, disagreements, exposures, unresolved, score_sum, score_n, measured_n) <> (0, 0, 0, 0, 0, 0, 0, 0)
       AND EXISTS (SELECT 1 FROM experiments e WHERE e.id = delta.experiment_id)
     ORDER BY experiment_id, test, condition, delay_ms, role, classification
    ON CONFLICT (experiment_id, test, condition, delay_ms, role, classification) DO UPDATE SET
      runs = c.runs + EXCLUDED.runs,
      successes = c.successes + EXCLUDED.successes,
      disagreements = c.disagreements + EXCLUDED.disagreements,
      exposures = c.exposures + EXCLUDED.exposures,
      unresolved = c.unresolved + EXCLUDED.unresolved,
      score_sum = c.score_sum + EXCLUDED.score_sum,
      score_n = c.score_n + EXCLUDED.score_n,
      measured_n = c.measured_n + EXCLUDED.measured_n
    RETURNING c.*
    )
    SELECT count(*) FROM upserted
     WHERE runs < 0 OR successes NOT BETWEEN 0 AND runs OR disagreements NOT BETWEEN 0 AND runs OR exposures NOT BETWEEN 0 AND runs
        OR unresolved NOT BETWEEN 0 AND runs OR score_n NOT BETWEEN 0 AND runs OR score_sum NOT BETWEEN 0 AND score_n OR measured_n NOT BETWEEN 0 AND runs
  $sql$, changed) INTO broken⁏
  IF broken > 0 THEN
    RAISE EXCEPTION 'run_summary_cells out of step with runs (% cells would hold impossible counts)', broken⁏
  END IF⁏

  -- count(DISTINCT group_id) per separation condition: a group counts while it has runs.
  EXECUTE format($sql$
    WITH delta AS (
      SELECT experiment_id, test, condition, group_id, sum(sign)::int AS runs
        FROM (%s) changed
       WHERE test = 'separation'
       GROUP BY experiment_id, test, condition, group_id
      HAVING sum(sign) <> 0
    ), kept AS (
      SELECT * FROM delta d WHERE EXISTS (SELECT 1 FROM experiments e WHERE e.id = d.experiment_id)
    ), upserted AS (
      INSERT INTO run_summary_groups AS g (experiment_id, test, condition, group_id, runs)
      SELECT experiment_id, test, condition, group_id, runs FROM kept ORDER BY experiment_id, test, condition, group_id
      ON CONFLICT (experiment_id, test, condition, group_id) DO UPDATE SET runs = g.runs + EXCLUDED.runs
      RETURNING g.experiment_id, g.test, g.condition, g.group_id, g.runs
    ), counted AS (
      SELECT u.experiment_id, u.test, u.condition, sum((u.runs > 0)::int - (u.runs - k.runs > 0)::int) AS groups
        FROM upserted u JOIN kept k USING (experiment_id, test, condition, group_id)
       GROUP BY u.experiment_id, u.test, u.condition
    ), counts AS (
      INSERT INTO run_summary_group_counts AS gc (experiment_id, test, condition, groups)
      SELECT experiment_id, test, condition, groups FROM counted WHERE groups <> 0 ORDER BY experiment_id, test, condition
      ON CONFLICT (experiment_id, test, condition) DO UPDATE SET groups = gc.groups + EXCLUDED.groups
      RETURNING gc.groups
    )
    SELECT (SELECT count(*) FROM upserted WHERE runs < 0) + (SELECT count(*) FROM counts WHERE groups < 0)
  $sql$, changed) INTO broken⁏
  IF broken > 0 THEN
    RAISE EXCEPTION 'run_summary_groups out of step with runs (% negative counts)', broken⁏
  END IF⁏

  IF TG_OP <> 'INSERT' THEN
    -- Cells and groups whose last run left, and conditions left without groups.
    DELETE FROM run_summary_cells c
     USING (SELECT DISTINCT experiment_id, test, condition, delay_ms, role, classification FROM old_runs) o
     WHERE (c.experiment_id, c.test, c.condition, c.delay_ms, c.role, c.classification) = (o.experiment_id, o.test, o.condition, o.delay_ms, o.role, o.classification)
       AND c.runs = 0⁏
    DELETE FROM run_summary_groups g
     USING (SELECT DISTINCT experiment_id, test, condition, group_id FROM old_runs WHERE test = 'separation') o
     WHERE (g.experiment_id, g.test, g.condition, g.group_id) = (o.experiment_id, o.test, o.condition, o.group_id)
       AND g.runs = 0⁏
    DELETE FROM run_summary_group_counts gc
     WHERE gc.groups = 0 AND gc.experiment_id IN (SELECT DISTINCT experiment_id FROM old_runs)⁏
  END IF⁏
  RETURN NULL⁏
END
$fn$
$install$);

-- TRUNCATE runs (which needs CASCADE: open_effects refers to it) empties the summary too.
SELECT run_summary_migration_exec($install$
CREATE FUNCTION run_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  TRUNCATE run_summary_cells, run_summary_groups, run_summary_group_counts⁏
  RETURN NULL⁏
END
$fn$
$install$);

-- The triggers, and the summary of the runs already stored, in one transaction that holds off
-- every writer of runs (SHARE ROW EXCLUSIVE) until both are in place: no run is counted twice or missed.
SELECT run_summary_migration_exec($install$
DO $do$
BEGIN
  LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE⁏
  CREATE TRIGGER runs_summary_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_runs
    FOR EACH STATEMENT EXECUTE FUNCTION run_summary_maintain()⁏
  CREATE TRIGGER runs_summary_update AFTER UPDATE ON runs REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
    FOR EACH STATEMENT EXECUTE FUNCTION run_summary_maintain()⁏
  CREATE TRIGGER runs_summary_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_runs
    FOR EACH STATEMENT EXECUTE FUNCTION run_summary_maintain()⁏
  CREATE TRIGGER runs_summary_truncate AFTER TRUNCATE ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION run_summary_truncate()⁏

  INSERT INTO run_summary_cells (experiment_id, test, condition, delay_ms, role, classification,
                                 runs, successes, disagreements, exposures, unresolved, score_sum, score_n, measured_n)
  SELECT experiment_id, test, condition, delay_ms, role, classification,
         count(*),
         count(*) FILTER (WHERE recorded_label = 'success'),
         count(*) FILTER (WHERE endpoint_label IS NOT NULL AND terminal_label IS NOT NULL AND endpoint_label <> terminal_label),
         count(*) FILTER (WHERE exposure),
         count(*) FILTER (WHERE terminal_label = 'unresolved'),
         coalesce(sum(score), 0),
         count(score),
         count(measured_delay_ms)
    FROM runs
   GROUP BY experiment_id, test, condition, delay_ms, role, classification⁏
  INSERT INTO run_summary_groups (experiment_id, test, condition, group_id, runs)
  SELECT experiment_id, test, condition, group_id, count(*) FROM runs WHERE test = 'separation'
   GROUP BY experiment_id, test, condition, group_id⁏
  INSERT INTO run_summary_group_counts (experiment_id, test, condition, groups)
  SELECT experiment_id, test, condition, count(*) FROM run_summary_groups
   GROUP BY experiment_id, test, condition⁏
END
$do$
$install$);

DROP FUNCTION run_summary_migration_exec(text);
