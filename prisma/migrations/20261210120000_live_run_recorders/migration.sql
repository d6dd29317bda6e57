-- CreateTable
CREATE TABLE "live_run_recorders" (
    "live_run_id" BIGINT NOT NULL,
    "recorder_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "flushed_through" TIMESTAMPTZ(3),
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "live_run_recorders_pkey" PRIMARY KEY ("live_run_id","recorder_id")
);

-- AddForeignKey
ALTER TABLE "live_run_recorders" ADD CONSTRAINT "live_run_recorders_live_run_id_fkey" FOREIGN KEY ("live_run_id") REFERENCES "live_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

