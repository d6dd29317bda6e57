-- AlterTable
ALTER TABLE "experiments" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'replay';

-- CreateTable
CREATE TABLE "canary_results" (
    "id" BIGSERIAL NOT NULL,
    "experiment_id" UUID NOT NULL,
    "condition" TEXT NOT NULL,
    "trial" INTEGER NOT NULL,
    "surface" TEXT NOT NULL,
    "canary" TEXT NOT NULL,
    "planted" JSONB NOT NULL,
    "found" BOOLEAN NOT NULL,
    "evidence" JSONB NOT NULL,
    "reset" JSONB,
    "expected_found" BOOLEAN NOT NULL,
    "held" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "canary_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_reset_canaries" (
    "id" BIGSERIAL NOT NULL,
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "reset_at" TIMESTAMPTZ(3) NOT NULL,
    "planted" TEXT NOT NULL,
    "found" BOOLEAN NOT NULL,
    "evidence" JSONB NOT NULL,
    "source" TEXT NOT NULL,
    "created_by_id" TEXT,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evaluation_reset_canaries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "canary_results_experiment_id_condition_trial_surface_key" ON "canary_results"("experiment_id", "condition", "trial", "surface");

-- CreateIndex
CREATE INDEX "evaluation_reset_canaries_run_id_surface_reset_at_idx" ON "evaluation_reset_canaries"("run_id", "surface", "reset_at");

-- AddForeignKey
ALTER TABLE "canary_results" ADD CONSTRAINT "canary_results_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_reset_canaries" ADD CONSTRAINT "evaluation_reset_canaries_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_reset_canaries" ADD CONSTRAINT "evaluation_reset_canaries_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Hand-written: the text columns' allowed values (lib/canary/config.ts).
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_kind_check" CHECK ("kind" IN ('replay', 'canary'));
ALTER TABLE "canary_results" ADD CONSTRAINT "canary_results_condition_check" CHECK ("condition" IN ('shared', 'namespaced', 'verified_reset'));
ALTER TABLE "canary_results" ADD CONSTRAINT "canary_results_surface_check" CHECK ("surface" IN ('values', 'operation_list', 'pending_operations'));
ALTER TABLE "evaluation_reset_canaries" ADD CONSTRAINT "evaluation_reset_canaries_source_check" CHECK ("source" IN ('record', 'posted'));
