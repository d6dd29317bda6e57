-- AlterTable
ALTER TABLE "experiments" ADD COLUMN     "started_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "replay_workers" (
    "worker_id" TEXT NOT NULL,
    "pool_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "replay_workers_pkey" PRIMARY KEY ("worker_id")
);

-- CreateIndex
CREATE INDEX "replay_workers_heartbeat_at_idx" ON "replay_workers"("heartbeat_at");

