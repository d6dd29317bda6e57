import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { createPrisma } from "../../db/prisma";
import { databaseBeforeMigration } from "../../testing/database";
import { finalityReference } from "../../testing/finality-reference";
import { FIRST, randomRuns } from "../../testing/random-runs";
import { auditFinality } from "../finality";
import { toolClassifier } from "../policy";

// The migration finality_basis names the basis of every final run stored before it, under its
// evaluation's current policy (patterns included), and counts the runs again by their new keys.
describe("migration finality_basis", () => {
  it("gives every stored final run the basis the rule gives it, and the counts their new keys", async () => {
    const migrating = await databaseBeforeMigration(inject("embeddedAdminUrl"), "finality_basis");
    const client = migrating.client;
    const db = createPrisma(migrating.url);
    try {
      const classOf = toolClassifier(FIRST);
      const evaluations: string[] = [];
      for (const harness of ["agentdojo", "inspect"]) {
        const id = randomUUID();
        evaluations.push(id);
        await client.query("INSERT INTO evaluations (id, name, harness) VALUES ($1, $2, $3)", [id, `before ${harness}`, harness]);
        await client.query("INSERT INTO evaluation_effect_policies (evaluation_id, version, tools) VALUES ($1, 1, $2)", [
          id,
          JSON.stringify(FIRST.tools),
        ]);
        for (const run of randomRuns(120, harness.length)) {
          const scoredAtMs = run.scoredAt ? Date.parse(run.scoredAt) : null;
          const effects = (run.effects ?? []).map((e) => ({
            effectId: e.effectId,
            tool: e.tool,
            handle: e.handle ?? null,
            requestedAtMs: Date.parse(e.requestedAt),
            statusAtScoring: e.statusAtScoring,
            resolutions: e.resolution ? [{ status: e.resolution.status, atMs: Date.parse(e.resolution.at) }] : [],
          }));
          const audit = scoredAtMs === null ? null : auditFinality({ scoredAtMs, effects }, classOf);
          const {
            rows: [{ id: runId }],
          } = await client.query(
            `INSERT INTO evaluation_runs (evaluation_id, external_id, task_id, started_at, scored_at, endpoint_label, unscored_reason, content_hash,
                                          finality, unresolved_reason, unresolved_effect_id, unresolved_tool, disagreement, audit_policy_version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, false, 1) RETURNING id`,
            [
              id,
              run.externalId,
              run.taskId,
              run.startedAt,
              run.scoredAt ?? null,
              run.endpointLabel ?? null,
              run.unscoredReason ?? null,
              run.externalId,
              audit?.finality ?? "unscored",
              audit?.finality === "unresolved" ? audit.reason : null,
              audit?.finality === "unresolved" ? audit.effectId : null,
              audit?.finality === "unresolved" ? audit.tool : null,
            ],
          );
          for (const e of run.effects ?? []) {
            await client.query(
              `INSERT INTO evaluation_effects (run_id, evaluation_id, effect_id, tool, handle, requested_at, status_at_scoring, possible_transitions)
               VALUES ($1, $2, $3, $4, $5, $6, $7, '{}')`,
              [runId, id, e.effectId, e.tool, e.handle ?? null, e.requestedAt, e.statusAtScoring],
            );
            if (e.resolution)
              await client.query(
                `INSERT INTO evaluation_effect_resolutions (run_id, evaluation_id, effect_id, status, at, evidence, source) VALUES ($1, $2, $3, $4, $5, $6, 'record')`,
                [runId, id, e.effectId, e.resolution.status, e.resolution.at, JSON.stringify(e.resolution.evidence)],
              );
          }
        }
      }

      await migrating.applyRest();

      for (const id of evaluations) {
        const stored = await db.$queryRaw<{ id: string; finality_basis: string | null; harness_design: string | null }[]>`
          SELECT id::text, finality_basis, harness_design FROM evaluation_runs WHERE evaluation_id = ${id}::uuid AND scored_at IS NOT NULL`;
        const reference = await finalityReference(db, id, FIRST);
        expect(stored.length).toBeGreaterThan(100);
        for (const run of stored) expect(run.finality_basis, run.id).toBe(reference.get(run.id)!.finality_basis);
        // The AgentDojo evaluation's runs declare its design; the other's none.
        expect(new Set(stored.map((r) => r.harness_design))).toEqual(new Set([id === evaluations[0] ? "agentdojo" : null]));
      }
      const bases = await db.$queryRaw<{ basis: string; n: number }[]>`
        SELECT finality_basis AS basis, count(*)::int AS n FROM evaluation_runs WHERE finality = 'final' GROUP BY 1 ORDER BY 1`;
      // Every basis the rule has is met by the random runs: the backfill's branches are all exercised.
      expect(bases.map((b) => b.basis)).toEqual(["harness_design", "no_effects", "policy_class", "recorded_evidence"]);
      const counts = await db.$queryRaw<{ mismatched: number }[]>`
        SELECT count(*)::int AS mismatched FROM (
          SELECT evaluation_id, finality, coalesce(finality_basis, '') AS finality_basis, coalesce(harness_design, '') AS harness_design, count(*) AS n
            FROM evaluation_runs GROUP BY 1, 2, 3, 4
          EXCEPT
          SELECT evaluation_id, finality, finality_basis, harness_design, sum(n) FROM evaluation_run_counts GROUP BY 1, 2, 3, 4 HAVING sum(n) > 0) AS d`;
      expect(counts).toEqual([{ mismatched: 0 }]);
    } finally {
      await db.$disconnect();
      await migrating.drop();
    }
  });
});
