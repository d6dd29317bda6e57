import { Logger, runOnce } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { DomainError } from "../../errors";
import { runnableJobCount } from "../../jobs/queue";
import { finalityReference } from "../../testing/finality-reference";
import { FIRST, postLateResolutions, randomRuns, SECOND, storedFinality } from "../../testing/random-runs";
import { useTestDatabase } from "../../testing/use-test-database";
import { recomputePolicyTask } from "../../worker/tasks";
import { createEvaluation } from "../manage/create-evaluation";
import { evaluationRunBatches, type ExportedRun } from "../read/export-runs";
import { ingestRuns } from "../ingest/ingest-runs";
import type { EffectPolicy } from "../effect-policy-schema";
import { setEffectPolicy } from "./set-effect-policy";
import { evaluationSummary } from "../read/summary";
import { recomputePolicyJob, recomputePolicyJobKey } from "./job";
import { underOneAppliedVersion } from "../read/under-one-applied-version";
import { applyPendingPolicy, type RecomputeStep } from "./recompute";

// A new effect-policy version applied by its job on a real PostgreSQL: the request
// only saves it; the figures stay under the applied version until the job applies the new one at once;
// runs ingested and resolutions appended while it computes end up under it; a job killed between
// chunks goes on from the last one; a newer version supersedes a pending one. Each run's columns are
// held equal to the finality rule applied in JavaScript (lib/testing/finality-reference.ts).
let db: Db;
let url: string;
useTestDatabase((database) => {
  db = database.db;
  url = database.url;
});

const THIRD: EffectPolicy = { tools: { "*": "async_handle", "bank.read": "read_only" } };

async function ingestedEvaluation(name: string, count: number, seed: number) {
  const id = await createEvaluation(db, { name, effectPolicy: FIRST }, null);
  const runs = randomRuns(count, seed);
  expect((await ingestRuns(db, id, runs)).filter((r) => r.status === "error")).toEqual([]);
  return { id, runs, scored: runs.filter((run) => run.scoredAt).length };
}

const recomputeRow = async (evaluationId: string, version: number) =>
  db.evaluationPolicyRecompute.findUniqueOrThrow({ where: { evaluationId_version: { evaluationId, version } } });
/** The chunks computed and the changed runs kept, of every version of the evaluation. */
const chunkResults = async (evaluationId: string) => ({
  chunks: await db.evaluationRecomputeChunk.count({ where: { evaluationId } }),
  changed: await db.evaluationRecomputedFinality.count({ where: { evaluationId } }),
});
const auditVersions = async (evaluationId: string) =>
  z
    .array(z.object({ v: z.number() }))
    .parse(
      await db.$queryRaw`SELECT DISTINCT audit_policy_version AS v FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid ORDER BY 1`,
    )
    .map((row) => row.v);

describe("a new effect-policy version, recomputed by its job", () => {
  it("changes no figure until the job applies it, then every run's finality is the rule's under it", async () => {
    const { id, runs, scored } = await ingestedEvaluation("applied by its job", 300, 3);
    await postLateResolutions(db, id, runs, 5);
    const before = await evaluationSummary(db, id);
    const underFirst = await storedFinality(db, id);

    const answer = await setEffectPolicy(db, id, SECOND, null);
    expect(answer).toEqual({ version: 2, appliedVersion: 1, recompute: { runsDone: 0, runsTotal: scored } });
    expect(await runnableJobCount(db, [recomputePolicyJobKey(id)])).toBe(1);
    // Nothing moved: the figures are version 1's, and say that version 2 is pending.
    expect(await storedFinality(db, id)).toEqual(underFirst);
    const pending = await evaluationSummary(db, id);
    expect(pending).toEqual({ ...before, pendingPolicy: { version: 2, runsDone: 0, runsTotal: scored, requestedAt: expect.any(String) } });

    const steps: RecomputeStep[] = [];
    await applyPendingPolicy(db, id, { chunkRuns: 64, afterStep: (step) => void steps.push(step) });
    // 300 runs, 285 scored: five chunks (the last one short), then the apply.
    expect(steps).toEqual(["chunk", "chunk", "chunk", "chunk", "chunk", "applied"]);
    expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, SECOND));
    const after = await evaluationSummary(db, id);
    expect(after).toMatchObject({ effectPolicyVersion: 2, pendingPolicy: null, runs: before.runs });
    expect(after.unresolved.n).not.toBe(before.unresolved.n);
    expect(await recomputeRow(id, 2)).toMatchObject({ runsDone: scored, runsTotal: scored, appliedAt: expect.any(Date) });
    expect(await chunkResults(id)).toEqual({ chunks: 0, changed: 0 });
    // Nothing is left to do: a job run again finds no version pending.
    steps.length = 0;
    await applyPendingPolicy(db, id, { afterStep: (step) => void steps.push(step) });
    expect(steps).toEqual(["idle"]);
  });

  it("audits runs ingested while it computes under the applied version, then applies the new one to them and to runs resolved meanwhile", async () => {
    const { id, runs } = await ingestedEvaluation("ingested meanwhile", 200, 13);
    await setEffectPolicy(db, id, SECOND, null);
    const late = randomRuns(260, 17)
      .slice(200)
      .map((run) => ({ ...run, externalId: `late-${run.externalId}` }));
    const last = randomRuns(280, 41)
      .slice(260)
      .map((run) => ({ ...run, externalId: `last-${run.externalId}` }));
    let chunks = 0;
    await applyPendingPolicy(db, id, {
      chunkRuns: 50,
      afterStep: async (step) => {
        if (step !== "chunk") return;
        if ((await recomputeRow(id, 2)).computed && chunks > 0) {
          // After the last chunk, before the apply: runs no chunk saw.
          chunks = -1;
          expect((await ingestRuns(db, id, last)).filter((r) => r.status === "error")).toEqual([]);
        }
        if (++chunks !== 2) return;
        // Between two chunks: a batch ingested, runs computed already re-sent with other effects (one of
        // them now unscored), and resolutions appended to runs computed already.
        expect((await ingestRuns(db, id, late)).filter((r) => r.status === "error")).toEqual([]);
        const computed = runs.slice(0, 50).filter((run) => run.scoredAt);
        const resent = computed
          .filter((run) => run.effects!.length > 0)
          .slice(0, 16)
          .map((run, i) => ({
            ...run,
            effects:
              i % 2 === 0
                ? []
                : run.effects!.map(({ resolution: _dropped, ...effect }) => ({ ...effect, statusAtScoring: "unknown" as const })),
          }));
        const {
          scoredAt: _scoredAt,
          endpointLabel: _label,
          ...crashed
        } = computed.find((run) => !resent.some((r) => r.externalId === run.externalId))!;
        const answers = await ingestRuns(db, id, [...resent, { ...crashed, unscoredReason: "crashed when re-run" }]);
        expect(answers.map((r) => r.status)).toEqual(Array(17).fill("updated"));
        expect(await postLateResolutions(db, id, runs.slice(50, 100), 19, 1)).toBeGreaterThan(20);
        // Still under version 1, the new runs too.
        expect(await auditVersions(id)).toEqual([1]);
        expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, FIRST));
        expect((await evaluationSummary(db, id)).effectPolicyVersion).toBe(1);
      },
    });
    expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, SECOND));
    expect((await evaluationSummary(db, id)).runs).toBe(280);
  });

  it("goes on from its last chunk when the job dies between chunks", async () => {
    const { id, scored } = await ingestedEvaluation("killed and retried", 240, 23);
    await setEffectPolicy(db, id, SECOND, null);
    let chunks = 0;
    const killed = applyPendingPolicy(db, id, {
      chunkRuns: 40,
      afterStep: (step) => {
        if (step === "chunk" && ++chunks === 3) throw new Error("killed");
      },
    });
    await expect(killed).rejects.toThrow("killed");
    expect(await recomputeRow(id, 2)).toMatchObject({ runsDone: 120, appliedAt: null });
    const kept = await chunkResults(id);
    expect(kept.chunks).toBe(3);
    expect(kept.changed).toBeGreaterThan(0);
    expect((await evaluationSummary(db, id)).effectPolicyVersion).toBe(1);

    const steps: RecomputeStep[] = [];
    await applyPendingPolicy(db, id, { chunkRuns: 40, afterStep: (step) => void steps.push(step) });
    // The chunks left of the scored runs after the first 120, and the apply: none computed twice.
    const left = Math.floor((scored - 120) / 40) + 1;
    expect(steps).toEqual([...Array<RecomputeStep>(left).fill("chunk"), "applied"]);
    expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, SECOND));
    expect(await recomputeRow(id, 2)).toMatchObject({ runsDone: scored, appliedAt: expect.any(Date) });
  });

  it("is superseded by a version saved while it computes: only the newest is applied, saved from the latest version", async () => {
    const { id } = await ingestedEvaluation("superseded", 150, 29);
    await setEffectPolicy(db, id, SECOND, null);
    let chunks = 0;
    await applyPendingPolicy(db, id, {
      chunkRuns: 30,
      afterStep: async (step) => {
        if (step !== "chunk" || ++chunks !== 2) return;
        // The latest version is the pending one: an edit from version 1 is stale.
        const stale = await setEffectPolicy(db, id, { ...THIRD, baseVersion: 1 }, null).catch((error: unknown) => error);
        expect(stale).toBeInstanceOf(DomainError);
        expect((stale as DomainError).details).toMatchObject({ current: { version: 2, policy: SECOND } });
        expect(await setEffectPolicy(db, id, { ...THIRD, baseVersion: 2 }, null)).toMatchObject({ version: 3, appliedVersion: 1 });
      },
    });
    expect((await evaluationSummary(db, id)).effectPolicyVersion).toBe(3);
    expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, THIRD));
    expect(await recomputeRow(id, 2)).toMatchObject({ appliedAt: null, supersededAt: expect.any(Date) });
    expect(await chunkResults(id)).toEqual({ chunks: 0, changed: 0 });
  });

  it("runs as the worker's recompute_effect_policy job, enqueued by the save", async () => {
    const { id } = await ingestedEvaluation("through the queue", 80, 31);
    await setEffectPolicy(db, id, SECOND, null);
    await runOnce({
      connectionString: url,
      taskList: {
        [recomputePolicyJob.name]: recomputePolicyTask(
          db,
          () => {},
          () => false,
        ),
      },
      logger: new Logger(() => () => {}),
    });
    expect((await evaluationSummary(db, id)).effectPolicyVersion).toBe(2);
    expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, SECOND));
    expect(await runnableJobCount(db, [recomputePolicyJobKey(id)])).toBe(0);
  });
});

describe("an export streamed while a version is applied", () => {
  it("reads every batch in the snapshot of its first: one version, its finality as it was", async () => {
    const { id } = await ingestedEvaluation("exported across an apply", 120, 43);
    await setEffectPolicy(db, id, SECOND, null);
    const before = await storedFinality(db, id);
    const underSecond = await finalityReference(db, id, SECOND);
    const exported: ExportedRun[] = [];
    for await (const batch of evaluationRunBatches(db, id, 25)) {
      // After the first batch: the new version applied, and a run ingested.
      if (exported.length === 0) {
        await applyPendingPolicy(db, id);
        await ingestRuns(db, id, randomRuns(121, 47).slice(120));
      }
      exported.push(...batch);
    }
    expect(exported).toHaveLength(120);
    expect(new Set(exported.map((run) => run.effectPolicyVersion))).toEqual(new Set([1]));
    // Every scored run's audit as it was before the apply, which changed it.
    const audits = (columns: Iterable<{ finality: string; unresolved_reason: string | null; unresolved_tool: string | null }>) =>
      [...columns].map((c) => `${c.finality}/${c.unresolved_reason}/${c.unresolved_tool}`).sort();
    const exportedAudits = audits(
      exported
        .filter((run) => run.finality !== "unscored")
        .map((run) => ({ finality: run.finality, unresolved_reason: run.unresolvedReason, unresolved_tool: run.unresolvedTool })),
    );
    expect(exportedAudits).toEqual(audits(before.values()));
    expect(exportedAudits).not.toEqual(audits(underSecond.values()));
  });
});

describe("underOneAppliedVersion", () => {
  it("reads again when a version is applied during the read, so that no answer mixes two", async () => {
    const { id } = await ingestedEvaluation("read across an apply", 60, 37);
    await setEffectPolicy(db, id, SECOND, null);
    const reads: number[] = [];
    const summary = await underOneAppliedVersion(db, id, async () => {
      const first = await evaluationSummary(db, id);
      // The first read's second half lands after the apply.
      if (reads.length === 0) await applyPendingPolicy(db, id);
      const second = await evaluationSummary(db, id);
      reads.push(first.effectPolicyVersion, second.effectPolicyVersion);
      return [first, second];
    });
    expect(reads).toEqual([1, 2, 2, 2]);
    expect(summary.map((s) => s.effectPolicyVersion)).toEqual([2, 2]);
  });
});
