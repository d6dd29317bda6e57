-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "experiments" (
    "id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "state" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "service" JSONB,
    "wall_ms" DOUBLE PRECISION,
    "error" TEXT,

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "experiment_id" UUID NOT NULL,
    "test" TEXT NOT NULL,
    "condition" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "schedule_id" INTEGER NOT NULL,
    "delay_ms" INTEGER NOT NULL,
    "repetition" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "endpoint_label" TEXT,
    "terminal_label" TEXT,
    "recorded_label" TEXT,
    "final_at_scoring" BOOLEAN,
    "score" INTEGER,
    "measured_delay_ms" DOUBLE PRECISION,
    "exposure" BOOLEAN,
    "classification" TEXT NOT NULL,
    "inherited_state" TEXT NOT NULL,
    "started_at_ms" DOUBLE PRECISION NOT NULL,
    "endpoint_at_ms" DOUBLE PRECISION,
    "scored_at_ms" DOUBLE PRECISION,
    "ended_at_ms" DOUBLE PRECISION,
    "evidence" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "open_effects" (
    "id" UUID NOT NULL,
    "experiment_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "task_id" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "trace_position" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "initiated_at_ms" DOUBLE PRECISION NOT NULL,
    "resource" TEXT NOT NULL,
    "controller" TEXT NOT NULL,
    "observation_handle" TEXT NOT NULL,
    "endpoint_status" TEXT NOT NULL,
    "possible_transitions" JSONB NOT NULL,
    "relevant_until_ms" DOUBLE PRECISION,
    "cross_run_route" TEXT NOT NULL,
    "terminal_status" TEXT NOT NULL,
    "terminal_evidence" JSONB NOT NULL,
    "resolved_at_ms" DOUBLE PRECISION,

    CONSTRAINT "open_effects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "implementation_checks" (
    "id" UUID NOT NULL,
    "experiment_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "evidence" TEXT NOT NULL,

    CONSTRAINT "implementation_checks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "runs_experiment_id_test_condition_delay_ms_idx" ON "runs"("experiment_id", "test", "condition", "delay_ms");

-- CreateIndex
CREATE UNIQUE INDEX "runs_natural_key" ON "runs"("experiment_id", "condition", "schedule_id", "delay_ms", "repetition", "role");

-- CreateIndex
CREATE INDEX "open_effects_experiment_id_terminal_status_idx" ON "open_effects"("experiment_id", "terminal_status");

-- CreateIndex
CREATE UNIQUE INDEX "open_effects_observation_handle_key" ON "open_effects"("observation_handle");

-- CreateIndex
CREATE UNIQUE INDEX "implementation_checks_experiment_id_name_key" ON "implementation_checks"("experiment_id", "name");

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "open_effects" ADD CONSTRAINT "open_effects_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "open_effects" ADD CONSTRAINT "open_effects_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "implementation_checks" ADD CONSTRAINT "implementation_checks_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the closed vocabularies of the paper, enforced by the database.
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_state_check"
  CHECK ("state" IN ('queued', 'running', 'completed', 'failed', 'cancelled'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_test_check" CHECK ("test" IN ('finality', 'separation'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_condition_check" CHECK ("condition" IN (
  'snapshot', 'reconciliation', 'verified_cancellation',
  'sync_snapshot', 'sync_reconciliation', 'sync_verified_cancellation',
  'shared', 'namespaced', 'verified_reset', 'no_write', 'b_before_a', 'grouped'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_role_check" CHECK ("role" IN ('single', 'A', 'B'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_endpoint_label_check" CHECK ("endpoint_label" IN ('success', 'failure'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_terminal_label_check" CHECK ("terminal_label" IN ('success', 'failure', 'unresolved'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_recorded_label_check" CHECK ("recorded_label" IN ('success', 'failure', 'unresolved'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_score_check" CHECK ("score" IN (0, 1));
ALTER TABLE "runs" ADD CONSTRAINT "runs_classification_check" CHECK ("classification" IN (
  'completed', 'agent_failure', 'protocol_stop', 'environment_failure', 'missing_evidence'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_inherited_state_check" CHECK ("inherited_state" IN ('none', 'internal', 'public'));
ALTER TABLE "open_effects" ADD CONSTRAINT "open_effects_endpoint_status_check"
  CHECK ("endpoint_status" IN ('pending', 'completed', 'failed', 'cancelled'));
ALTER TABLE "open_effects" ADD CONSTRAINT "open_effects_terminal_status_check"
  CHECK ("terminal_status" IN ('completed', 'failed', 'cancelled', 'unresolved'));
