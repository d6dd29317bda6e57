import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { appendResolution } from "../evaluations/audit/append-resolution";
import { createEvaluation } from "../evaluations/manage/create-evaluation";
import { getEvaluationRun } from "../evaluations/read/evaluation-run";
import { listEvaluationRuns } from "../evaluations/read/evaluation-runs";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { at, WORKED_POLICY, workedExample } from "../testing/evaluation-example";
import { useTestDatabase } from "../testing/use-test-database";
import { frozenRunState, runDetailAtFreeze, matchesAuditAtFreeze, type RunsFreeze } from "./frozen-runs";
import { loadShareContent } from "./resources";
import { runsAtFreeze } from "./shared-evaluation";

// An evaluation's runs as a frozen share link reads them, on a real PostgreSQL: what was stored,
// posted and re-sent after the freeze does not change what the link shows.
let db: Db;
useTestDatabase((database) => (db = database.db));

const LIST = { limit: 50 } as const;
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));

describe("a frozen evaluation link's runs", () => {
  it("lists the runs stored by the freeze, each audited with the evidence recorded by then; a run re-sent since is named", async () => {
    const id = await createEvaluation(db, { name: "frozen runs", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, workedExample());
    const content = await loadShareContent(db, "evaluation", id);
    if (content?.kind !== "evaluation") throw new Error("no evaluation content");
    expect(content.summary.unresolved.n).toBe(1);
    await pause();
    const freeze: RunsFreeze = {
      at: new Date(),
      effectPolicy: content.evaluation.effectPolicy,
      effectPolicyVersion: content.evaluation.effectPolicyVersion,
    };
    await pause();

    // After the freeze: r1's transfer gets evidence (r1 is now resolved_after_scoring, no longer pending), r4 is stored, r3 re-sent.
    await appendResolution(db, id, "e1", { status: "completed", at: at(4), evidence: "ledger entry 8812" }, null);
    const later = workedExample();
    later[2]!.endpointLabel = "failure";
    await ingestRuns(db, id, [...later, { ...later[2]!, externalId: "r4" }]);
    const now = await listEvaluationRuns(db, id, { ...LIST, finality: "unresolved" });
    expect(now.runs.map((r) => r.externalId)).toEqual([]);

    const asOf = { asOf: { at: freeze.at, policyVersion: freeze.effectPolicyVersion } };
    const all = await runsAtFreeze(db, (await listEvaluationRuns(db, id, LIST, asOf)).runs, freeze);
    expect(all.map((r) => [r.externalId, r.finality, r.unresolvedReason, r.frozenState])).toEqual([
      ["r1", "unresolved", "pending_at_scoring", "as_frozen"],
      ["r2", "final", null, "as_frozen"],
      ["r3", "final", null, "changed_after_freeze"],
    ]);

    // The summary's "unresolved 1/3" opens that run: the filter keeps the runs whose audit moved since, audited as of then.
    const filter = { finality: "unresolved" } as const;
    const candidates = await runsAtFreeze(db, (await listEvaluationRuns(db, id, { ...LIST, ...filter }, asOf)).runs, freeze);
    expect(candidates.filter((r) => matchesAuditAtFreeze(r, filter)).map((r) => r.externalId)).toEqual(["r1"]);

    // r1's page as frozen: its evidence then (none), and the finality it gave; as it is now, the evidence posted since.
    const r1 = (await getEvaluationRun(db, id, "r1"))!;
    expect(r1.effects[0]!.resolutions).toHaveLength(1);
    const frozenR1 = runDetailAtFreeze(r1, freeze);
    expect(frozenR1.effects[0]!.resolutions).toEqual([]);
    expect(frozenR1).toMatchObject({ finality: "unresolved", unresolvedReason: "pending_at_scoring", unresolvedEffectId: "e1" });
    expect(frozenRunState((await getEvaluationRun(db, id, "r4"))!, freeze.at)).toBe("after_freeze");
    expect(frozenRunState((await getEvaluationRun(db, id, "r3"))!, freeze.at)).toBe("changed_after_freeze");
  });
});
