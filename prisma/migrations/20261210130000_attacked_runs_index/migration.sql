-- Hand-written (Prisma's schema has no partial indexes): the summary's attack success reads an evaluation's
-- runs under attack (a `security` label, AgentDojo's) through this index, so that its cost is the attacked
-- runs', and nothing for an evaluation without any, rather than a read of every run of the evaluation.
CREATE INDEX "evaluation_runs_attacked_idx" ON "evaluation_runs" ("evaluation_id") WHERE "labels" ? 'security';
