-- The agent configuration (model and defence) a run ran under, and the injection task an attacked run carried:
-- what the evaluation page groups utility and attack success by.
ALTER TABLE "evaluation_runs" ADD COLUMN "pipeline" TEXT,
ADD COLUMN "injection_task_id" TEXT;

-- Hand-written (Prisma's schema has no partial indexes): the summary's outcomes beside the endpoint label read
-- the runs that carry any (`labels`) through this index, nothing for an evaluation whose runs carry none.
CREATE INDEX "evaluation_runs_labelled_idx" ON "evaluation_runs" ("evaluation_id") WHERE "labels" IS NOT NULL;
