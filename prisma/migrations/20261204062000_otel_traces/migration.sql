-- AlterTable
ALTER TABLE "evaluations" ADD COLUMN "score_threshold" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "live_run_spans" (
    "live_run_id" BIGINT NOT NULL,
    "span_id" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "name" TEXT NOT NULL,
    "start_at" TIMESTAMPTZ(3) NOT NULL,
    "end_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER NOT NULL,
    "attributes" JSONB NOT NULL,

    CONSTRAINT "live_run_spans_pkey" PRIMARY KEY ("live_run_id","span_id")
);

-- CreateTable
CREATE TABLE "otel_traces" (
    "evaluation_id" UUID NOT NULL,
    "trace_id" TEXT NOT NULL,
    "live_run_id" BIGINT NOT NULL,

    CONSTRAINT "otel_traces_pkey" PRIMARY KEY ("evaluation_id","trace_id")
);

-- CreateIndex
CREATE INDEX "otel_traces_live_run_id_idx" ON "otel_traces"("live_run_id");

-- AddForeignKey
ALTER TABLE "live_run_spans" ADD CONSTRAINT "live_run_spans_live_run_id_fkey" FOREIGN KEY ("live_run_id") REFERENCES "live_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "otel_traces" ADD CONSTRAINT "otel_traces_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "otel_traces" ADD CONSTRAINT "otel_traces_live_run_id_fkey" FOREIGN KEY ("live_run_id") REFERENCES "live_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: OTLP's three status codes.
ALTER TABLE "live_run_spans" ADD CONSTRAINT "live_run_spans_status_code_check" CHECK ("status_code" IN (0, 1, 2));
