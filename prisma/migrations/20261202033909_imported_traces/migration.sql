-- DropIndex
DROP INDEX "traces_source_benchmark_version_suite_task_key";

-- AlterTable
ALTER TABLE "evaluation_runs" ADD COLUMN     "trace_id" UUID;

-- AlterTable
ALTER TABLE "traces" ADD COLUMN     "content_hash" TEXT;

-- CreateIndex
CREATE INDEX "evaluation_runs_trace_id_idx" ON "evaluation_runs"("trace_id");

-- CreateIndex
CREATE UNIQUE INDEX "traces_content_hash_key" ON "traces"("content_hash");

-- AddForeignKey
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_trace_id_fkey" FOREIGN KEY ("trace_id") REFERENCES "traces"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Ground-truth traces stay one per (source, version, suite, task), imported traces are one per call sequence (content_hash).
CREATE UNIQUE INDEX "traces_ground_truth_task_key" ON "traces"("source", "benchmark_version", "suite", "task") WHERE "content_hash" IS NULL;

-- Imported traces (lib/traces/imported.ts) carry their sequence's hash, ground-truth ones none.
ALTER TABLE "traces" DROP CONSTRAINT "traces_source_check";
ALTER TABLE "traces" ADD CONSTRAINT "traces_source_check" CHECK (("source" = 'ground_truth' AND "content_hash" IS NULL) OR ("source" = 'imported' AND "content_hash" IS NOT NULL));

-- The runs the importer's trace step looks for after each batch (lib/traces/imported.ts, UNTRACED): found without reading the evaluation's other runs.
CREATE INDEX "evaluation_runs_untraced_idx" ON "evaluation_runs"("evaluation_id") WHERE "trace_id" IS NULL AND jsonb_typeof("tool_calls") = 'array' AND "tool_calls" <> '[]'::jsonb;
