-- CreateTable
CREATE TABLE "evaluation_audit_revisions" (
    "evaluation_id" UUID NOT NULL,
    "revision" BIGINT NOT NULL,

    CONSTRAINT "evaluation_audit_revisions_pkey" PRIMARY KEY ("evaluation_id")
);

-- CreateTable
CREATE TABLE "evaluation_statistics_cache" (
    "evaluation_id" UUID NOT NULL,
    "treatment" TEXT NOT NULL,
    "revision" BIGINT NOT NULL,
    "aggregates" JSONB NOT NULL,

    CONSTRAINT "evaluation_statistics_cache_pkey" PRIMARY KEY ("evaluation_id","treatment")
);

-- AddForeignKey
ALTER TABLE "evaluation_audit_revisions" ADD CONSTRAINT "evaluation_audit_revisions_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_statistics_cache" ADD CONSTRAINT "evaluation_statistics_cache_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Every statement that writes an evaluation's runs bumps its revision in the writer's transaction
-- (writers of one evaluation are serialised already: the policy row lock and the audit's advisory lock).
CREATE FUNCTION evaluation_audit_revision_bump_new() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_audit_revisions AS r (evaluation_id, revision) SELECT DISTINCT n.evaluation_id, 1 FROM new_runs n WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = n.evaluation_id) ORDER BY 1 ON CONFLICT (evaluation_id) DO UPDATE SET revision = r.revision + 1\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_audit_revision_bump_old() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_audit_revisions AS r (evaluation_id, revision) SELECT DISTINCT o.evaluation_id, 1 FROM old_runs o WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = o.evaluation_id) ORDER BY 1 ON CONFLICT (evaluation_id) DO UPDATE SET revision = r.revision + 1\073 RETURN NULL\073 END';
CREATE TRIGGER evaluation_runs_revision_insert AFTER INSERT ON evaluation_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_audit_revision_bump_new();
CREATE TRIGGER evaluation_runs_revision_update AFTER UPDATE ON evaluation_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_audit_revision_bump_new();
CREATE TRIGGER evaluation_runs_revision_delete AFTER DELETE ON evaluation_runs REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_audit_revision_bump_old();
