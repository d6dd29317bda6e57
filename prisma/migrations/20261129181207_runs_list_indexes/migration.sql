-- Indexes for the runs and open-effects views (lib/dashboard/). Plain SQL, not in schema.prisma:
-- the first is on an expression, which Prisma's schema cannot state. The runs list itself needs none:
-- it pages in the order of the unique index runs_natural_key.

-- /effects and its exports: unresolved records first, keyset-paginated on exactly this key
-- (lib/dashboard/effects.ts orders by the same expression, so the index serves both the order and the cursor).
CREATE INDEX "open_effects_unresolved_first_idx" ON "open_effects" (("terminal_status" <> 'unresolved'), "experiment_id", "initiated_at_ms", "id");

-- A run's page reads its open-effects records by run, and deleting runs (experiment cascade) looks them up the same way.
CREATE INDEX "open_effects_run_id_idx" ON "open_effects" ("run_id");

-- A separation run's page finds the other run of its pair by experiment and group.
CREATE INDEX "runs_experiment_id_group_id_idx" ON "runs" ("experiment_id", "group_id");
