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
-- C 1, I 0, P 0.5, N 0, yes/true 1, no/false 0, booleans, finite numbers and decimal strings; NULL for anything else.
CREATE FUNCTION "score_as_number"(value JSONB) RETURNS DOUBLE PRECISION LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  text_value TEXT;
  result DOUBLE PRECISION;
BEGIN
  CASE jsonb_typeof(value)
    WHEN 'boolean' THEN RETURN CASE WHEN value = 'true'::jsonb THEN 1 ELSE 0 END;
    WHEN 'number' THEN result := (value #>> '{}')::double precision;
    WHEN 'string' THEN
      text_value := lower(regexp_replace(value #>> '{}', '^\s+|\s+$', '', 'g'));
      CASE text_value
        WHEN 'c', 'yes', 'true' THEN RETURN 1;
        WHEN 'i', 'n', 'no', 'false' THEN RETURN 0;
        WHEN 'p' THEN RETURN 0.5;
        ELSE NULL;
      END CASE;
      IF text_value !~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?$' THEN RETURN NULL; END IF;
      result := text_value::double precision;
    ELSE RETURN NULL;
  END CASE;
  RETURN CASE WHEN result IN ('Infinity'::double precision, '-Infinity'::double precision) THEN NULL ELSE result END;
EXCEPTION WHEN numeric_value_out_of_range THEN
  -- Past float8's range: a number JavaScript reads as ±Infinity (no value) or, far below it, 0.
  RETURN CASE WHEN (value #>> '{}') ~* 'e-' THEN 0 ELSE NULL END;
END $$;
