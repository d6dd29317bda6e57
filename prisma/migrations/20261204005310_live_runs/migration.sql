-- AlterTable
ALTER TABLE "evaluations" ADD COLUMN     "live_run_timeout_seconds" INTEGER NOT NULL DEFAULT 3600;

-- CreateTable
CREATE TABLE "live_runs" (
    "id" BIGSERIAL NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "external_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "group_id" TEXT,
    "attempt" INTEGER,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'open',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "timeout_seconds" INTEGER NOT NULL,
    "scored_at" TIMESTAMPTZ(3),
    "outcome" JSONB,
    "closed_at" TIMESTAMPTZ(3),
    "clock_skew_events" INTEGER NOT NULL DEFAULT 0,
    "last_event_at" TIMESTAMPTZ(3),

    CONSTRAINT "live_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "live_run_events" (
    "id" BIGSERIAL NOT NULL,
    "live_run_id" BIGINT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "effect_id" TEXT,
    "body" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "live_run_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "live_runs_state_expires_at_idx" ON "live_runs"("state", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "live_runs_evaluation_id_external_id_key" ON "live_runs"("evaluation_id", "external_id");

-- CreateIndex
CREATE INDEX "live_run_events_live_run_id_type_idx" ON "live_run_events"("live_run_id", "type");

-- CreateIndex
CREATE UNIQUE INDEX "live_run_events_live_run_id_event_id_key" ON "live_run_events"("live_run_id", "event_id");

-- AddForeignKey
ALTER TABLE "live_runs" ADD CONSTRAINT "live_runs_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "live_run_events" ADD CONSTRAINT "live_run_events_live_run_id_fkey" FOREIGN KEY ("live_run_id") REFERENCES "live_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the states and event types the code knows (lib/evaluations/live/schemas.ts).
ALTER TABLE "live_runs" ADD CONSTRAINT "live_runs_state_check" CHECK ("state" IN ('open', 'scored', 'unscored', 'expired'));
ALTER TABLE "live_run_events" ADD CONSTRAINT "live_run_events_type_check" CHECK ("type" IN ('effect_requested', 'effect_status', 'touch', 'reset'));
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_live_run_timeout_check" CHECK ("live_run_timeout_seconds" BETWEEN 1 AND 604800);
