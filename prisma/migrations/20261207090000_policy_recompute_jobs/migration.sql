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

-- Each computed run's finality under the version, until it is applied (then deleted). `changed`: it
-- differed from the run's stored audit when computed. Every computed run has a row: a run without one
-- when the version is applied committed after its chunk, and is computed again then.
CREATE TABLE "evaluation_recomputed_finality" (
    "evaluation_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "run_id" BIGINT NOT NULL,
    "finality" TEXT NOT NULL,
    "unresolved_reason" TEXT,
    "unresolved_effect_id" TEXT,
    "unresolved_tool" TEXT,
    "changed" BOOLEAN NOT NULL,
    -- hashtextextended(content_hash, 0) of the run as computed: a run re-sent with other content since is computed again.
    "content_key" BIGINT NOT NULL,

    CONSTRAINT "evaluation_recomputed_finality_pkey" PRIMARY KEY ("evaluation_id","version","run_id")
);

ALTER TABLE "evaluation_policy_recomputes" ADD CONSTRAINT "evaluation_policy_recomputes_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evaluation_recomputed_finality" ADD CONSTRAINT "evaluation_recomputed_finality_recompute_fkey" FOREIGN KEY ("evaluation_id", "version") REFERENCES "evaluation_policy_recomputes"("evaluation_id", "version") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every version saved before this migration was applied in its request.
INSERT INTO "evaluation_policy_recomputes" ("evaluation_id", "version", "runs_total", "runs_done", "computed", "resolution_high_water", "requested_at", "applied_at", "traces_relinked_at")
SELECT p.evaluation_id, p.version, 0, 0, true, 0, p.created_at, p.created_at, p.created_at FROM "evaluation_effect_policies" p;
