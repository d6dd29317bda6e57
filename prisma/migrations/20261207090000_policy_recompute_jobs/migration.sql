-- A new effect-policy version is recomputed by a job (lib/evaluations/policy-recompute/), not in its
-- request: the evaluation's figures stay under effect_policy_version until the job applies the new
-- version in one transaction, pending_policy_version names the version being recomputed meanwhile.
ALTER TABLE "evaluations" ADD COLUMN "pending_policy_version" INTEGER;

-- One row per version saved: its recompute's progress, kept as the history of when each was applied.
CREATE TABLE "evaluation_policy_recomputes" (
    "evaluation_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    -- Scored runs when the version was saved, and runs computed so far (runs ingested meanwhile are added when it is applied).
    "runs_total" INTEGER NOT NULL,
    "runs_done" INTEGER NOT NULL DEFAULT 0,
    -- The last run id computed: the next chunk starts after it.
    "after_run_id" BIGINT NOT NULL DEFAULT 0,
    -- Every chunk computed (the swap is next).
    "computed" BOOLEAN NOT NULL DEFAULT false,
    -- The largest resolution id when the version was saved: runs resolved past it are computed again when it is applied.
    "resolution_high_water" BIGINT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "applied_at" TIMESTAMPTZ(3),
    -- A newer version saved before this one was applied: it never will be.
    "superseded_at" TIMESTAMPTZ(3),
    -- The runs' trace links moved to the version's write marks (after it was applied).
    "traces_relinked_at" TIMESTAMPTZ(3),

    CONSTRAINT "evaluation_policy_recomputes_pkey" PRIMARY KEY ("evaluation_id","version")
);

-- The runs whose finality a chunk found changed under the version, with it, until the version is
-- applied (then deleted). Runs it leaves as they are have no row: storing every run cost more than computing it.
CREATE TABLE "evaluation_recomputed_finality" (
    "evaluation_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "run_id" BIGINT NOT NULL,
    "finality" TEXT NOT NULL,
    "unresolved_reason" TEXT,
    "unresolved_effect_id" TEXT,
    "unresolved_tool" TEXT,

    CONSTRAINT "evaluation_recomputed_finality_pkey" PRIMARY KEY ("evaluation_id","version","run_id")
);

-- Each chunk computed: its run-id range, how many scored runs it saw there and the exclusive or of
-- their content keys (hashtextextended(content_hash, 0)). A range that holds other runs when the version is
-- applied (a batch that committed after its chunk, a run re-sent with other content, or scored or
-- unscored since) is computed again then, whole.
CREATE TABLE "evaluation_recompute_chunks" (
    "evaluation_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "after_run_id" BIGINT NOT NULL,
    "last_run_id" BIGINT NOT NULL,
    "runs" INTEGER NOT NULL,
    "content_xor" BIGINT NOT NULL,

    CONSTRAINT "evaluation_recompute_chunks_pkey" PRIMARY KEY ("evaluation_id","version","last_run_id")
);

ALTER TABLE "evaluation_policy_recomputes" ADD CONSTRAINT "evaluation_policy_recomputes_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evaluation_recomputed_finality" ADD CONSTRAINT "evaluation_recomputed_finality_recompute_fkey" FOREIGN KEY ("evaluation_id", "version") REFERENCES "evaluation_policy_recomputes"("evaluation_id", "version") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evaluation_recompute_chunks" ADD CONSTRAINT "evaluation_recompute_chunks_recompute_fkey" FOREIGN KEY ("evaluation_id", "version") REFERENCES "evaluation_policy_recomputes"("evaluation_id", "version") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every version saved before this migration was applied in its request.
INSERT INTO "evaluation_policy_recomputes" ("evaluation_id", "version", "runs_total", "runs_done", "computed", "resolution_high_water", "requested_at", "applied_at", "traces_relinked_at")
SELECT p.evaluation_id, p.version, 0, 0, true, 0, p.created_at, p.created_at, p.created_at FROM "evaluation_effect_policies" p;
