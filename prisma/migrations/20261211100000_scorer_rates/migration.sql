-- Hand-written (Prisma's schema has no partial indexes or functions): every scorer's rate beside the labelling one.
-- The scorer whose values labelled each imported log's runs, by the log.
CREATE TABLE "evaluation_labelling_scorers" (
    "evaluation_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "scorer" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "evaluation_labelling_scorers_pkey" PRIMARY KEY ("evaluation_id", "source")
);
ALTER TABLE "evaluation_labelling_scorers" ADD CONSTRAINT "evaluation_labelling_scorers_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The summary's scorer rates read the runs that hold scorer values through this index: nothing for an evaluation without any.
CREATE INDEX "evaluation_runs_scorer_values_idx" ON "evaluation_runs" ("evaluation_id") WHERE "scorer_values" IS NOT NULL;

-- A scorer's value as a number, as lib/importers/inspect.ts scoreAsNumber reads it (Inspect's value_to_float):
-- C 1, I 0, P 0.5, N 0, yes/true 1, no/false 0, booleans, numbers and decimal strings within float8's normal range
-- (past it NULL, as JavaScript's Infinity is no value, and below it 0), NULL for anything else. One SQL statement,
-- read as numeric first so that no cast can fail on a stored value.
CREATE FUNCTION "score_as_number"(value JSONB) RETURNS DOUBLE PRECISION LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
           WHEN n IS NULL THEN NULL
           WHEN abs(n) > 1.7976931348623157e308 THEN NULL
           WHEN abs(n) < 2.2250738585072014e-308 THEN 0
           ELSE n::double precision
         END
    FROM (SELECT CASE jsonb_typeof(value)
                   WHEN 'boolean' THEN CASE WHEN value = 'true'::jsonb THEN 1 ELSE 0 END
                   WHEN 'number' THEN (value #>> '{}')::numeric
                   WHEN 'string' THEN
                     CASE
                       WHEN t IN ('c', 'yes', 'true') THEN 1
                       WHEN t IN ('i', 'n', 'no', 'false') THEN 0
                       WHEN t = 'p' THEN 0.5
                       WHEN t ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]{1,4})?$' THEN t::numeric
                       WHEN t ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)e-[0-9]+$' THEN 0
                     END
                 END AS n
            FROM (SELECT lower(regexp_replace(value #>> '{}', '^\s+|\s+$', '', 'g')) AS t) AS trimmed) AS read
$$;
