import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { finalityReference } from "../../testing/finality-reference";
import { seededRandom } from "../../testing/seeded-random";
import { useTestDatabase } from "../../testing/use-test-database";
import { appendResolution } from "../append-resolution";
import { createEvaluation } from "../create-evaluation";
import { evaluationRunBatches } from "../export-runs";
import { ingestRuns } from "../ingest/ingest-runs";
import { RESOLUTION_STATUSES, STATUSES_AT_SCORING, type EffectPolicy, type RunRecord } from "../schemas";
import { setEffectPolicy } from "../set-effect-policy";

// recomputeFinality is the finality rule (auditFinality) written in SQL. It must give every run the
// columns the rule gives it in JavaScript (lib/testing/finality-reference.ts), whatever the runs hold:
// every class (by name and by pattern, and none), every status at scoring, handles or none, resolutions
// before and after scoring appended in any order, effects requested at the same instant.
let db: Db;
useTestDatabase((database) => (db = database.db));

const TOOLS = ["bank.send", "bank.read", "files.write", "mail.send", "deploy.run", "x.unknown"];
const FIRST: EffectPolicy = {
  tools: { "bank.*": "async_handle", "bank.read": "read_only", "files.write": "sync_confirmed", "mail.send": "external" },
};
const SECOND: EffectPolicy = {
  tools: { "*.send": "external", "files.*": "async_handle", "deploy.run": "read_only", "x.*": "sync_confirmed" },
};
const T0 = Date.parse("2026-12-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

function randomRuns(count: number, seed: number): RunRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const start = T0 + i * 10_000;
    const scored = start + 5_000;
    const unscored = random() < 0.05;
    // Requested at one of a few instants, so that ties fall to the effect id.
    const effects = Array.from({ length: Math.floor(random() * 5) }, (_, k) => {
      const requested = start + 1_000 * Math.floor(random() * 3);
      const resolved = random() < 0.4;
      return {
        effectId: pick(["a", "b", "B", "a1", "ä", "z"]) + k,
        tool: pick(TOOLS),
        ...(random() < 0.8 && { handle: `h-${i}-${k}` }),
        requestedAt: iso(requested),
        statusAtScoring: pick(STATUSES_AT_SCORING),
        ...(resolved && {
          resolution: { status: pick(RESOLUTION_STATUSES), at: iso(requested + Math.floor(random() * 9_000)), evidence: "checked" },
        }),
      };
    });
    return {
      externalId: `run-${i}`,
      taskId: `task-${i % 7}`,
      startedAt: iso(start),
      ...(unscored ? { unscoredReason: "crashed" } : { scoredAt: iso(scored), endpointLabel: pick(["success", "failure"] as const) }),
      effects,
    };
  });
}

const storedColumns = async (evaluationId: string) =>
  new Map(
    z
      .array(
        z.object({
          id: z.string(),
          finality: z.string(),
          unresolved_reason: z.string().nullable(),
          unresolved_effect_id: z.string().nullable(),
          unresolved_tool: z.string().nullable(),
        }),
      )
      .parse(
        await db.$queryRaw`
          SELECT id::text, finality, unresolved_reason, unresolved_effect_id, unresolved_tool
            FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND scored_at IS NOT NULL`,
      )
      .map(({ id, ...columns }) => [id, columns]),
  );

describe("recomputeFinality", () => {
  it("gives every run the columns the finality rule gives it, after late resolutions and under a new policy version", async () => {
    const id = await createEvaluation(db, { name: "finality in SQL", effectPolicy: FIRST }, null);
    const runs = randomRuns(400, 7);
    const answer = await ingestRuns(db, id, runs);
    expect(answer.filter((r) => r.status === "error")).toEqual([]);
    // Late resolutions, posted one at a time (each recomputes its run): after scoring, before it, and an unknown one.
    const random = seededRandom(11);
    const posted = runs.filter((run) => run.scoredAt && run.effects!.length > 0).filter(() => random() < 0.3);
    for (const run of posted) {
      const effect = run.effects![Math.floor(random() * run.effects!.length)]!;
      const status = RESOLUTION_STATUSES[Math.floor(random() * RESOLUTION_STATUSES.length)]!;
      const at = iso(Date.parse(effect.requestedAt) + Math.floor(random() * 9_000));
      await appendResolution(db, id, effect.effectId, { status, at, evidence: "posted later", runExternalId: run.externalId }, null);
    }
    expect(posted.length).toBeGreaterThan(50);

    const underFirst = await storedColumns(id);
    expect(underFirst).toEqual(await finalityReference(db, id, FIRST));

    await setEffectPolicy(db, id, SECOND, null);
    const underSecond = await storedColumns(id);
    expect(underSecond).toEqual(await finalityReference(db, id, SECOND));
    // The data exercise the rule: every reason, and runs whose finality the new policy changed.
    expect(new Set([...underSecond.values()].map((c) => c.unresolved_reason))).toEqual(
      new Set([null, "pending_at_scoring", "resolved_after_scoring", "unverifiable", "never_resolved", "unclassified_tool"]),
    );
    expect([...underSecond].filter(([run, c]) => underFirst.get(run)!.finality !== c.finality).length).toBeGreaterThan(20);
    // Runs it left as they were are exported under the new version too: every figure is under it.
    const versions = new Set<number>();
    for await (const batch of evaluationRunBatches(db, id)) for (const run of batch) versions.add(run.effectPolicyVersion);
    expect(versions).toEqual(new Set([2]));
  });
});
