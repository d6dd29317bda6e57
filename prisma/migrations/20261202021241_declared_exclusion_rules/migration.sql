-- AlterTable
ALTER TABLE "experiments" ADD COLUMN     "exclusion_rule_version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "share_links" ADD COLUMN     "resource_ids" UUID[] DEFAULT ARRAY[]::UUID[];

-- AlterTable
ALTER TABLE "evaluations" ADD COLUMN     "exclusion_rule_version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "exclusion_rule_versions" (
    "id" BIGSERIAL NOT NULL,
    "experiment_id" UUID,
    "evaluation_id" UUID,
    "version" INTEGER NOT NULL,
    "rule" JSONB NOT NULL,
    "canonical" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exclusion_rule_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "exclusion_rule_versions_experiment_id_version_key" ON "exclusion_rule_versions"("experiment_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "exclusion_rule_versions_evaluation_id_version_key" ON "exclusion_rule_versions"("evaluation_id", "version");

-- AddForeignKey
ALTER TABLE "exclusion_rule_versions" ADD CONSTRAINT "exclusion_rule_versions_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "exclusion_rule_versions" ADD CONSTRAINT "exclusion_rule_versions_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "exclusion_rule_versions" ADD CONSTRAINT "exclusion_rule_versions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Hand-written below the diff.
ALTER TABLE "exclusion_rule_versions" ADD CONSTRAINT "exclusion_rule_versions_one_subject_check" CHECK (("experiment_id" IS NULL) <> ("evaluation_id" IS NULL));
ALTER TABLE "exclusion_rule_versions" ADD CONSTRAINT "exclusion_rule_versions_version_check" CHECK ("version" >= 1);

-- Every experiment and evaluation has a version 1: the code's default rule (DEFAULT_EXPERIMENT_RULE,
-- the same as DEFAULT_EVALUATION_RULE, with its canonical JSON and SHA-256 as exclusionRuleIdentity
-- computes them, checked by lib/statistics/exclusion-rules.db.test.ts). A row created without a
-- declaration gets it from the trigger, and a declaration at creation replaces it in the same transaction.
CREATE FUNCTION default_exclusion_rule() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO exclusion_rule_versions (experiment_id, evaluation_id, version, rule, canonical, hash, reason, created_by_id) VALUES (CASE WHEN TG_TABLE_NAME = ''experiments'' THEN NEW.id END, CASE WHEN TG_TABLE_NAME = ''evaluations'' THEN NEW.id END, 1, ''{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}''::jsonb, ''{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}'', ''3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509'', ''the default rule: none was declared at creation'', NEW.created_by_id)\073 RETURN NEW\073 END';
CREATE TRIGGER experiments_default_exclusion_rule AFTER INSERT ON "experiments" FOR EACH ROW EXECUTE FUNCTION default_exclusion_rule();
CREATE TRIGGER evaluations_default_exclusion_rule AFTER INSERT ON "evaluations" FOR EACH ROW EXECUTE FUNCTION default_exclusion_rule();

INSERT INTO exclusion_rule_versions (experiment_id, version, rule, canonical, hash, reason, created_by_id, created_at)
SELECT id, 1,
       '{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}'::jsonb,
       '{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}',
       '3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509',
       'the default rule, given to every experiment created before rules were declared', created_by_id, created_at
  FROM experiments;
INSERT INTO exclusion_rule_versions (evaluation_id, version, rule, canonical, hash, reason, created_by_id, created_at)
SELECT id, 1,
       '{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}'::jsonb,
       '{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}',
       '3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509',
       'the default rule, given to every evaluation created before rules were declared', created_by_id, created_at
  FROM evaluations;

-- A comparison link names its evaluations in resource_ids (two or more) and no resource_id.
ALTER TABLE "share_links" DROP CONSTRAINT "share_links_resource_type_check";
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_resource_type_check" CHECK ("resource_type" IN ('experiment', 'run', 'protocol_matrix', 'evaluation', 'completion_argument', 'comparison'));
ALTER TABLE "share_links" DROP CONSTRAINT "share_links_resource_id_check";
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_resource_id_check" CHECK (("resource_type" IN ('protocol_matrix', 'comparison')) = ("resource_id" IS NULL));
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_resource_ids_check" CHECK (("resource_type" = 'comparison') = (coalesce(cardinality("resource_ids"), 0) >= 2));
