import { describe, expect, it } from "vitest";
import { poolOf, type Db } from "../db/prisma";
import { useTestDatabase } from "../testing/use-test-database";
import { at, SURFACE, WORKED_POLICY, workedExample as worked } from "../testing/evaluation-example";
import { appendResolution } from "./audit/append-resolution";
import { createEvaluation } from "./manage/create-evaluation";
import { syntheticRun } from "../testing/synthetic-evaluation-runs";
import { separationReference, storedSeparation } from "../testing/separation-reference";
import { refreshSurfaceStats, storedSurfaceStats } from "./audit/surface-stats-store";
import { surfaceHistories } from "./audit/separation-recompute";
import { epochSurfaceStats } from "./separation";
import { evaluationStatistics } from "./read/evaluation-statistics";
import { evaluationTools, largestUnits } from "./read/units-and-tools";
import { listEvaluationRuns } from "./read/evaluation-runs";
import { ingestRuns } from "./ingest/ingest-runs";
import { setEffectPolicy } from "./policy-recompute/set-effect-policy";
import { applyPendingPolicy } from "./policy-recompute/recompute";
import { evaluationSummary } from "./read/summary";
import type { RunListCursor } from "./read/read-boundary";

// The worked example of docs/evaluations.md, stored and audited on a real PostgreSQL.
let db: Db;

useTestDatabase((database) => (db = database.db));

describe("an evaluation, stored and audited", () => {
  it("recomputes the audit on a late resolution, a run re-sent with a verified reset, and a new policy version", async () => {
    const id = await createEvaluation(db, { name: "worked example", effectPolicy: WORKED_POLICY }, null);
    expect(await ingestRuns(db, id, worked())).toEqual(["r1", "r2", "r3"].map((externalId) => ({ externalId, status: "created" })));
    // The figures of the worked example are checked one by one through the API (app/api/v1/evaluations); here, what changes them.
    expect(await evaluationSummary(db, id)).toMatchObject({
      unresolved: { byReason: { pending_at_scoring: 1 } },
      units: { analysisUnits: 1 },
    });

    // Late evidence: r1's transfer completed at 10:00:08, after it was scored at 10:00:05.
    await appendResolution(db, id, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812", verifiedBy: "reconciler" }, null);
    const late = await evaluationSummary(db, id);
    expect(late.unresolved).toEqual({ n: 1, byReason: { resolved_after_scoring: 1 }, byTool: { "bank.transfer": 1 } });
    expect(await db.evaluationEffectResolution.count({ where: { evaluationId: id } })).toBe(2);

    // A verified reset before r3 (after both writes settled) makes r3 its own unit; an update is reported as such.
    const withReset = worked();
    Object.assign(withReset[2]!, { resets: [{ surface: SURFACE, at: at(20), verified: true, evidence: "read back 100" }] });
    expect((await ingestRuns(db, id, withReset)).map((r) => r.status)).toEqual(["unchanged", "unchanged", "updated"]);
    expect((await evaluationSummary(db, id)).units).toEqual({ runRows: 3, analysisUnits: 2, largest: 2 });
    const r1 = (
      await db.evaluationRun.findUniqueOrThrow({ where: { evaluationId_externalId: { evaluationId: id, externalId: "r1" } } })
    ).id.toString();
    expect(await largestUnits(db, id)).toEqual([{ unit: r1, label: "U1", runs: 2, surfaces: [SURFACE] }]);
    // r1's write settled at 10:00:08 only now that evidence came; the posted resolution survived the update.
    expect(await db.evaluationEffectResolution.count({ where: { evaluationId: id, source: "posted" } })).toBe(1);

    // A new policy version recomputes finality (its job): bank.transfer read-only makes every run final.
    expect(await setEffectPolicy(db, id, { tools: { "bank.*": "read_only" } }, null)).toMatchObject({ version: 2, appliedVersion: 1 });
    await applyPendingPolicy(db, id);
    expect(await evaluationSummary(db, id)).toMatchObject({ effectPolicyVersion: 2, final: { successes: 3, n: 3 }, unresolved: { n: 0 } });
    expect(await db.evaluationEffectPolicy.count({ where: { evaluationId: id } })).toBe(2);

    // The trigger-kept counts the summary reads agree with a fresh aggregation of the runs after every kind of write.
    const [fresh] = await db.$queryRaw<{ runs: bigint; final: bigint; units: bigint; exposed: bigint; disagreements: bigint }[]>`
      SELECT count(*) AS runs, count(*) FILTER (WHERE finality = 'final') AS final, count(*) FILTER (WHERE analysis_unit = id) AS units,
             count(*) FILTER (WHERE inherited_state <> 'none') AS exposed, count(*) FILTER (WHERE disagreement) AS disagreements
        FROM evaluation_runs WHERE evaluation_id = ${id}::uuid`;
    const summary = await evaluationSummary(db, id);
    expect([summary.runs, summary.final.n, summary.units.analysisUnits, summary.exposures.n, summary.disagreements.n]).toEqual(
      [fresh!.runs, fresh!.final, fresh!.units, fresh!.exposed, fresh!.disagreements].map(Number),
    );
  });

  it("serves the statistics' run aggregates from their cache only until a write changes the runs", async () => {
    const id = await createEvaluation(db, { name: "statistics cache", effectPolicy: WORKED_POLICY }, null);
    // The answer, and the same taken afresh (its cache emptied): they must agree after every kind of write.
    const served = async () => {
      const answer = await evaluationStatistics(db, id);
      await db.$executeRaw`DELETE FROM evaluation_statistics_cache WHERE evaluation_id = ${id}::uuid`;
      expect(await evaluationStatistics(db, id)).toEqual(answer);
      return answer;
    };
    const empty = await served();
    await ingestRuns(db, id, worked().slice(0, 2));
    const two = await served();
    expect(two.units.runRows).toBe(2);
    expect(two).not.toEqual(empty);
    await ingestRuns(db, id, worked());
    expect((await served()).units).toMatchObject({ runRows: 3, analysisUnits: 1 });
    await appendResolution(db, id, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812", verifiedBy: "reconciler" }, null);
    await served();
    const withReset = worked();
    Object.assign(withReset[2]!, { resets: [{ surface: SURFACE, at: at(20), verified: true, evidence: "read back 100" }] });
    await ingestRuns(db, id, withReset);
    const late = await served();
    expect(late.units.analysisUnits).toBe(2);
    await setEffectPolicy(db, id, { tools: { "bank.*": "read_only" } }, null);
    await applyPendingPolicy(db, id);
    expect(await served()).not.toEqual(late);
  });

  it("stores text with tabs, newlines, backslashes and quotes exactly (rows are copied in COPY's text format)", async () => {
    const id = await createEvaluation(db, { name: "escapes", effectPolicy: WORKED_POLICY }, null);
    const awkward = 'a\tb\nc\\d "e" {f,g} \\N';
    const [run] = worked();
    Object.assign(run!.effects![0]!, {
      notes: awkward,
      controller: awkward,
      possibleTransitions: [awkward, "NULL", ""].filter(Boolean),
      arguments: { text: awkward, list: [awkward, null] },
    });
    Object.assign(run!, { labels: { [awkward]: "success" } });
    expect((await ingestRuns(db, id, [run]))[0]!.status).toBe("created");
    const effect = await db.evaluationEffect.findFirstOrThrow({ where: { evaluationId: id } });
    expect([effect.notes, effect.controller, effect.possibleTransitions, effect.arguments]).toEqual([
      awkward,
      awkward,
      [awkward, "NULL"],
      { text: awkward, list: [awkward, null] },
    ]);
    expect((await db.evaluationRun.findFirstOrThrow({ where: { evaluationId: id } })).labels).toEqual({ [awkward]: "success" });
    expect((await ingestRuns(db, id, [run]))[0]!.status).toBe("unchanged");
  });

  it("stores the good runs of a batch and nothing of a bad one, naming its index and field", async () => {
    const id = await createEvaluation(db, { name: "bad input" }, null);
    const runs: unknown[] = worked();
    (runs[1] as { effects: { requestedAt: string }[] }).effects[0]!.requestedAt = at(9); // before r2 started at 10
    const results = await ingestRuns(db, id, runs);
    expect(results[1]).toEqual({
      externalId: "r2",
      status: "error",
      error: {
        code: "invalid_run",
        field: "runs.1.effects.0.requestedAt",
        message: expect.stringContaining("runs.1.effects.0.requestedAt"),
      },
    });
    expect(results.filter((r) => r.status === "created").map((r) => r.externalId)).toEqual(["r1", "r3"]);
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(2);
    expect(await db.evaluationEffect.count({ where: { evaluationId: id } })).toBe(1);
  });

  it("stores each run once when batches that share runs prepare at the same time (the rows a loser copied before the lock go)", async () => {
    const id = await createEvaluation(db, { name: "racing batches", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
    const runs = Array.from({ length: 300 }, (_, i) => syntheticRun(i));
    const changed = structuredClone(runs[250]!);
    changed.taskId = "task-changed";
    // Run 250 is stored first. Three batches share runs 100-199; the third also re-sends run 250 changed (the
    // changed path stores it, and the third's other runs). The test holds the audit lock until all three wait on
    // it, so each prepares (and copies its touches) before any of them stores a run.
    expect((await ingestRuns(db, id, [runs[250]!]))[0]!.status).toBe("created");
    const batches = [runs.slice(0, 200), [...runs.slice(100, 250), ...runs.slice(251)], [...runs.slice(150, 200), changed]];
    const holder = await poolOf(db).connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`evaluation-audit:${id}`]);
      const ingesting = batches.map((batch) => ingestRuns(db, id, batch));
      for (let waiting = 0; waiting < batches.length; await new Promise((resolve) => setTimeout(resolve, 20))) {
        const { rows } = await holder.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
        waiting = rows[0]!.n;
      }
      await holder.query("COMMIT");
      const results = (await Promise.all(ingesting)).flat();
      expect(results.filter((r) => r.status === "error")).toEqual([]);
      // Every other run created once (runs 100-199 by one batch only; the others found them unchanged), run 250 updated.
      const created = results.filter((r) => r.status === "created").map((r) => r.externalId);
      expect(new Set(created).size).toBe(created.length);
      expect(new Set(created)).toEqual(new Set(runs.filter((_, i) => i !== 250).map((r) => r.externalId)));
      expect(results.filter((r) => r.status === "updated").map((r) => r.externalId)).toEqual([changed.externalId]);
    } finally {
      holder.release();
    }
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(300);
    // The stored children are exactly the runs' own (run 250's the changed version's): none copied twice, none orphaned.
    const expected = [...runs.slice(0, 250), changed, ...runs.slice(251)];
    const [stored] = await db.$queryRaw<{ touches: bigint; resolutions: bigint; effects: bigint; links: bigint; orphans: bigint }[]>`
      SELECT (SELECT count(*) FROM evaluation_touches WHERE evaluation_id = ${id}::uuid) AS touches,
             (SELECT count(*) FROM evaluation_run_traces WHERE evaluation_id = ${id}::uuid) AS links,
             (SELECT count(*) FROM evaluation_effect_resolutions WHERE evaluation_id = ${id}::uuid) AS resolutions,
             (SELECT count(*) FROM evaluation_effects WHERE evaluation_id = ${id}::uuid) AS effects,
             (SELECT count(*) FROM evaluation_effect_resolutions s WHERE s.evaluation_id = ${id}::uuid AND NOT EXISTS (SELECT 1 FROM evaluation_runs r WHERE r.id = s.run_id)) AS orphans`;
    expect(stored).toEqual({
      touches: BigInt(expected.reduce((n, r) => n + (r.touches?.length ?? 0), 0)),
      resolutions: BigInt(expected.reduce((n, r) => n + (r.effects ?? []).filter((e) => e.resolution).length, 0)),
      effects: BigInt(expected.reduce((n, r) => n + (r.effects?.length ?? 0), 0)),
      // one trace link per run with calls (every synthetic run makes two to four)
      links: 300n,
      orphans: 0n,
    });
    expect(
      (
        await db.evaluationRun.findUniqueOrThrow({
          where: { evaluationId_externalId: { evaluationId: id, externalId: changed.externalId } },
        })
      ).taskId,
    ).toBe("task-changed");
  });

  it("adds new runs by each surface's stats exactly as the rules give from every surface's history, in any batch order", async () => {
    const id = await createEvaluation(db, { name: "fast path", effectPolicy: { tools: { "bank.transfer": "async_handle" } } }, null);
    // 1,200 synthetic runs (a tenth of their surfaces shared by many runs), some with a verified reset (the full
    // recompute's case) or a public touch that makes a shared surface public later; batches out of time order.
    const runs = Array.from({ length: 1_200 }, (_, i) => {
      const run = syntheticRun(i);
      if (i % 150 === 7) run.resets = [{ surface: `db:inventory/${i % 97}`, at: run.scoredAt, verified: true, evidence: "read back" }];
      if (i % 200 === 11)
        run.touches = [...(run.touches ?? []), { surface: `db:inventory/${i % 97}`, op: "read", at: run.scoredAt, public: true }];
      return run;
    });
    for (const b of [3, 0, 5, 1, 4, 2])
      expect((await ingestRuns(db, id, runs.slice(b * 200, b * 200 + 200))).every((r) => r.status === "created")).toBe(true);
    // Units, inherited states and link groups as the pure rules give them from every surface's whole history.
    const stored = await storedSeparation(db, id);
    expect(stored.units.length).toBeGreaterThan(50);
    expect(stored).toEqual(await separationReference(db, id));
    // The surface stats the fast path kept equal those of every surface's latest epoch, from its whole history.
    const surfaces = (
      await db.$queryRaw<{ surface: string }[]>`SELECT DISTINCT surface FROM evaluation_touches WHERE evaluation_id = ${id}::uuid`
    ).map((r) => r.surface);
    const kept = await db.$transaction((tx) => storedSurfaceStats(tx, id, [...surfaces].sort()));
    const histories = await db.$transaction((tx) => surfaceHistories(tx, id, surfaces));
    let decided = 0;
    for (const history of histories) {
      const stats = kept.get(history.surface)!;
      if (stats.recompute) continue;
      decided++;
      // A horizon may be left unknown (null), never wrong.
      const exact = epochSurfaceStats(history);
      expect(stats, history.surface).toEqual({ ...exact, horizonMs: stats.horizonMs === null ? null : exact.horizonMs });
    }
    expect(decided).toBeGreaterThan(surfaces.length / 2);
    // Refreshed in SQL from every surface's history, a surface without an epoch keeps its stats; one with a verified reset is left to the recompute.
    await db.$transaction((tx) => refreshSurfaceStats(tx, id, surfaces));
    const refreshed = await db.$transaction((tx) => storedSurfaceStats(tx, id, [...surfaces].sort()));
    for (const [surface, stats] of kept)
      if (stats.epochStartMs === null && !stats.recompute) expect(refreshed.get(surface), surface).toEqual({ ...stats, horizonMs: null });
    expect([...refreshed.values()].filter((s) => s.recompute).length).toBeGreaterThan(0);

    // The tool counts kept at ingestion equal a scan of every run's calls and effects.
    const scanned = await db.$queryRaw<{ tool: string; effects: bigint; calls: bigint }[]>`
      SELECT tool, sum(effects) AS effects, sum(calls) AS calls FROM (
        SELECT tool, count(*) AS effects, 0 AS calls FROM evaluation_effects WHERE evaluation_id = ${id}::uuid GROUP BY tool
        UNION ALL
        SELECT c->>'tool', 0, count(*) FROM evaluation_runs r CROSS JOIN LATERAL jsonb_array_elements(r.tool_calls) c WHERE r.evaluation_id = ${id}::uuid GROUP BY 1
      ) seen GROUP BY tool ORDER BY tool`;
    expect((await evaluationTools(db, id, { tools: {} })).map(({ tool, effects, calls }) => ({ tool, effects, calls }))).toEqual(
      scanned.map((r) => ({ tool: r.tool, effects: Number(r.effects), calls: Number(r.calls) })),
    );
  });

  it("pages through every run in id order, past the ids whose digits sort differently as text", async () => {
    const id = await createEvaluation(db, { name: "paged" }, null);
    const names = Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    await ingestRuns(
      db,
      id,
      names.map((externalId, i) => ({ ...worked()[2]!, externalId, startedAt: at(i), scoredAt: at(i + 1), touches: [] })),
      { traces: "caller" },
    );
    const seen: { id: string; externalId: string }[] = [];
    let cursor: RunListCursor | undefined;
    for (let page = 0; page < 10; page++) {
      const { runs, nextCursor } = await listEvaluationRuns(db, id, { limit: 4, cursor });
      seen.push(...runs);
      if (!nextCursor) break;
      cursor = ["stored", null, runs.at(-1)!.id];
    }
    // Ids with fewer digits sort after longer ones as text ("9" > "10"): a list ordered so lost runs at every page.
    expect(seen.map((r) => r.externalId).sort()).toEqual(names);
    expect(seen.map((r) => BigInt(r.id))).toEqual(seen.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : 1)));
  });
});
