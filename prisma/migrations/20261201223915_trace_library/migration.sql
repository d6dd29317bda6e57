-- CreateTable
CREATE TABLE "traces" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "benchmark_version" TEXT NOT NULL,
    "suite" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "calls" JSONB NOT NULL,
    "call_count" INTEGER NOT NULL,
    "state_changing_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "traces_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "traces_suite_kind_task_idx" ON "traces"("suite", "kind", "task");

-- CreateIndex
CREATE UNIQUE INDEX "traces_source_benchmark_version_suite_task_key" ON "traces"("source", "benchmark_version", "suite", "task");

-- CreateIndex
CREATE INDEX "evaluation_runs_task_id_idx" ON "evaluation_runs"("task_id");


-- Hand-written: the library's closed vocabularies.
ALTER TABLE "traces" ADD CONSTRAINT "traces_source_check" CHECK ("source" IN ('ground_truth'));
ALTER TABLE "traces" ADD CONSTRAINT "traces_kind_check" CHECK ("kind" IN ('user', 'injection'));
ALTER TABLE "traces" ADD CONSTRAINT "traces_counts_check" CHECK ("call_count" >= 0 AND "state_changing_count" BETWEEN 0 AND "call_count");
