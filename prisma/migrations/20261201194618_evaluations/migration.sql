-- CreateTable
CREATE TABLE "evaluations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "harness" TEXT,
    "benchmark" TEXT,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "effect_policy_version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "evaluations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_effect_policies" (
    "evaluation_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "tools" JSONB NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evaluation_effect_policies_pkey" PRIMARY KEY ("evaluation_id","version")
);

-- CreateTable
CREATE TABLE "evaluation_runs" (
    "id" BIGSERIAL NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "external_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "group_id" TEXT,
    "attempt" INTEGER,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "scored_at" TIMESTAMPTZ(3) NOT NULL,
    "endpoint_label" TEXT NOT NULL,
    "terminal_label" TEXT,
    "score" DOUBLE PRECISION,
    "threshold" DOUBLE PRECISION,
    "tool_calls" JSONB,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finality" TEXT NOT NULL,
    "unresolved_reason" TEXT,
    "unresolved_effect_id" TEXT,
    "unresolved_tool" TEXT,
    "disagreement" BOOLEAN NOT NULL,
    "analysis_unit" BIGINT,
    "inherited_state" TEXT NOT NULL DEFAULT 'none',
    "audit_policy_version" INTEGER NOT NULL,

    CONSTRAINT "evaluation_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_effects" (
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "effect_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "call_id" TEXT,
    "trace_position" INTEGER,
    "arguments" JSONB,
    "surface" TEXT,
    "controller" TEXT,
    "handle" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "acknowledged_at" TIMESTAMPTZ(3),
    "status_at_scoring" TEXT NOT NULL,
    "possible_transitions" TEXT[],
    "relevant_until" TIMESTAMPTZ(3),
    "cross_run_route" TEXT,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "notes" TEXT,

    CONSTRAINT "evaluation_effects_pkey" PRIMARY KEY ("run_id","effect_id")
);

-- CreateTable
CREATE TABLE "evaluation_effect_resolutions" (
    "id" BIGSERIAL NOT NULL,
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "effect_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "evidence" JSONB NOT NULL,
    "verified_by" TEXT,
    "source" TEXT NOT NULL,
    "created_by_id" TEXT,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evaluation_effect_resolutions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_touches" (
    "id" BIGSERIAL NOT NULL,
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "op" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "public" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "evaluation_touches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_resets" (
    "id" BIGSERIAL NOT NULL,
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "verified" BOOLEAN NOT NULL,
    "evidence" JSONB,

    CONSTRAINT "evaluation_resets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_surface_links" (
    "evaluation_id" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "run_id" BIGINT NOT NULL,
    "link_group" BIGINT NOT NULL,
    "inherited" TEXT NOT NULL,

    CONSTRAINT "evaluation_surface_links_pkey" PRIMARY KEY ("evaluation_id","surface","run_id")
);

-- CreateIndex
CREATE INDEX "evaluations_created_at_id_idx" ON "evaluations"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_finality_unresolved_reason_idx" ON "evaluation_runs"("evaluation_id", "finality", "unresolved_reason");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_analysis_unit_idx" ON "evaluation_runs"("evaluation_id", "analysis_unit");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_id_idx" ON "evaluation_runs"("evaluation_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "evaluation_runs_evaluation_id_external_id_key" ON "evaluation_runs"("evaluation_id", "external_id");

-- CreateIndex
CREATE INDEX "evaluation_effects_evaluation_id_effect_id_idx" ON "evaluation_effects"("evaluation_id", "effect_id");

-- CreateIndex
CREATE INDEX "evaluation_effects_evaluation_id_surface_idx" ON "evaluation_effects"("evaluation_id", "surface");

-- CreateIndex
CREATE INDEX "evaluation_effect_resolutions_run_id_effect_id_idx" ON "evaluation_effect_resolutions"("run_id", "effect_id");

-- CreateIndex
CREATE INDEX "evaluation_touches_run_id_idx" ON "evaluation_touches"("run_id");

-- CreateIndex
CREATE INDEX "evaluation_touches_evaluation_id_surface_idx" ON "evaluation_touches"("evaluation_id", "surface");

-- CreateIndex
CREATE INDEX "evaluation_resets_run_id_idx" ON "evaluation_resets"("run_id");

-- CreateIndex
CREATE INDEX "evaluation_resets_evaluation_id_surface_idx" ON "evaluation_resets"("evaluation_id", "surface");

-- CreateIndex
CREATE INDEX "evaluation_surface_links_run_id_idx" ON "evaluation_surface_links"("run_id");

-- AddForeignKey
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_effect_policies" ADD CONSTRAINT "evaluation_effect_policies_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_effect_policies" ADD CONSTRAINT "evaluation_effect_policies_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_effects" ADD CONSTRAINT "evaluation_effects_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_effect_resolutions" ADD CONSTRAINT "evaluation_effect_resolutions_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_effect_resolutions" ADD CONSTRAINT "evaluation_effect_resolutions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_touches" ADD CONSTRAINT "evaluation_touches_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_resets" ADD CONSTRAINT "evaluation_resets_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_surface_links" ADD CONSTRAINT "evaluation_surface_links_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the vocabularies as CHECK constraints (lib/evaluations/schemas.ts names them).
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_endpoint_label_check" CHECK ("endpoint_label" IN ('success', 'failure'));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_terminal_label_check" CHECK ("terminal_label" IN ('success', 'failure'));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_finality_check" CHECK ("finality" IN ('final', 'unresolved'));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_unresolved_reason_check" CHECK (
  ("finality" = 'final' AND "unresolved_reason" IS NULL) OR
  ("finality" = 'unresolved' AND "unresolved_reason" IN ('pending_at_scoring', 'resolved_after_scoring', 'never_resolved', 'unverifiable', 'unclassified_tool')));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_inherited_state_check" CHECK ("inherited_state" IN ('none', 'internal', 'public'));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_times_check" CHECK ("scored_at" >= "started_at" AND ("ended_at" IS NULL OR "ended_at" >= "started_at"));
ALTER TABLE "evaluation_effects" ADD CONSTRAINT "evaluation_effects_status_at_scoring_check" CHECK ("status_at_scoring" IN ('pending', 'completed', 'failed', 'cancelled', 'unknown'));
ALTER TABLE "evaluation_effect_resolutions" ADD CONSTRAINT "evaluation_effect_resolutions_status_check" CHECK ("status" IN ('completed', 'failed', 'cancelled', 'unknown'));
ALTER TABLE "evaluation_effect_resolutions" ADD CONSTRAINT "evaluation_effect_resolutions_source_check" CHECK ("source" IN ('record', 'posted'));
ALTER TABLE "evaluation_touches" ADD CONSTRAINT "evaluation_touches_op_check" CHECK ("op" IN ('read', 'write', 'score'));
ALTER TABLE "evaluation_surface_links" ADD CONSTRAINT "evaluation_surface_links_inherited_check" CHECK ("inherited" IN ('none', 'internal', 'public'));
ALTER TABLE "evaluation_effect_policies" ADD CONSTRAINT "evaluation_effect_policies_version_check" CHECK ("version" >= 1);

-- Append-only: a stored resolution or policy version is never changed (only who created it may
-- become null when that account is deleted). A run re-sent with changes replaces the resolutions
-- its own record carried (source record), those posted later stay.
-- (Prisma's statement splitter cuts at every semicolon: the body spells it \073.)
CREATE FUNCTION evaluation_append_only() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''% is append-only'', TG_TABLE_NAME\073 END';
CREATE TRIGGER evaluation_effect_resolutions_append_only BEFORE UPDATE OF "run_id", "evaluation_id", "effect_id", "status", "at", "evidence", "verified_by", "source", "recorded_at" ON "evaluation_effect_resolutions" FOR EACH ROW EXECUTE FUNCTION evaluation_append_only();
CREATE TRIGGER evaluation_effect_policies_append_only BEFORE UPDATE OF "evaluation_id", "version", "tools", "created_at" ON "evaluation_effect_policies" FOR EACH ROW EXECUTE FUNCTION evaluation_append_only();
