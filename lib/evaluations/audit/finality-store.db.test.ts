import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { finalityReference } from "../../testing/finality-reference";
import { FIRST, postLateResolutions, randomRuns, SECOND, storedFinality } from "../../testing/random-runs";
import { useTestDatabase } from "../../testing/use-test-database";
import { createEvaluation } from "../manage/create-evaluation";
import { evaluationRunBatches } from "../read/export-runs";
import { ingestRuns } from "../ingest/ingest-runs";
import { applyPendingPolicy } from "../policy-recompute/recompute";
import { setEffectPolicy } from "../policy-recompute/set-effect-policy";

// recomputeFinality is the finality rule (auditFinality) written in SQL. It must give every run the
// columns the rule gives it in JavaScript (lib/testing/finality-reference.ts), whatever the runs hold:
// every class (by name and by pattern, and none), every status at scoring, handles or none, resolutions
// before and after scoring appended in any order, effects requested at the same instant.
let db: Db;
useTestDatabase((database) => (db = database.db));

describe("recomputeFinality", () => {
  it("gives every run the columns the finality rule gives it, after late resolutions and under a new policy version", async () => {
    const id = await createEvaluation(db, { name: "finality in SQL", effectPolicy: FIRST }, null);
    const runs = randomRuns(400, 7);
    const answer = await ingestRuns(db, id, runs);
    expect(answer.filter((r) => r.status === "error")).toEqual([]);
    // Late resolutions, posted one at a time (each recomputes its run): after scoring, before it, and an unknown one.
    expect(await postLateResolutions(db, id, runs, 11)).toBeGreaterThan(50);

    const underFirst = await storedFinality(db, id);
    expect(underFirst).toEqual(await finalityReference(db, id, FIRST));

    await setEffectPolicy(db, id, SECOND, null);
    await applyPendingPolicy(db, id);
    const underSecond = await storedFinality(db, id);
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
