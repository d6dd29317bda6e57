-- Hand-written: an effect the harness never ran (lib/evaluations/schemas.ts, STATUSES_AT_SCORING).
ALTER TABLE "evaluation_effects" DROP CONSTRAINT "evaluation_effects_status_at_scoring_check";
ALTER TABLE "evaluation_effects" ADD CONSTRAINT "evaluation_effects_status_at_scoring_check" CHECK ("status_at_scoring" IN ('pending', 'completed', 'failed', 'cancelled', 'unknown', 'not_executed'));
