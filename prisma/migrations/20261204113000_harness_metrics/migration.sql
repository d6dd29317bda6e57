-- Hand-written: what the harness itself scored and reported (issue 27). Each scorer's value per run,
-- as the log holds it, and the log's own figures per scorer (Inspect's results.scores[].metrics),
-- by the log they came from: shown beside the success rates, which are thresholded.
ALTER TABLE "evaluation_runs" ADD COLUMN "scorer_values" JSONB;
CREATE TABLE "evaluation_harness_metrics" (
    "evaluation_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "scorer" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "evaluation_harness_metrics_pkey" PRIMARY KEY ("evaluation_id", "source", "scorer", "metric")
);
ALTER TABLE "evaluation_harness_metrics" ADD CONSTRAINT "evaluation_harness_metrics_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
