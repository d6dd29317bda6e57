-- Ingestion copies a new batch's touches and resets before it takes the evaluation's audit lock,
-- and the runs they belong to under it (lib/evaluations/ingest.ts): their run keys are checked at
-- commit. Nothing else changes: a missing run still refuses the transaction, ON DELETE CASCADE still holds.
ALTER TABLE "evaluation_touches" ALTER CONSTRAINT "evaluation_touches_run_id_fkey" DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "evaluation_resets" ALTER CONSTRAINT "evaluation_resets_run_id_fkey" DEFERRABLE INITIALLY DEFERRED;
