-- AlterTable
ALTER TABLE "evaluation_units" ADD COLUMN     "surfaces" TEXT[] DEFAULT ARRAY[]::TEXT[];


-- Backfill: the surfaces of the links of each unit's runs.
UPDATE "evaluation_units" u SET "surfaces" = ARRAY(
  SELECT DISTINCT l.surface FROM evaluation_runs r JOIN evaluation_surface_links l ON l.run_id = r.id
   WHERE r.evaluation_id = u.evaluation_id AND r.analysis_unit = u.unit ORDER BY 1);
