import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { DomainError } from "../../errors";
import { useTestDatabase } from "../../testing/use-test-database";
import { at, SURFACE, WORKED_POLICY, workedExample } from "../../testing/evaluation-example";
import { appendResetCanary } from "./append-reset-canary";
import { createEvaluation } from "../manage/create-evaluation";
import { getEvaluationRun } from "../read/evaluation-run";
import { resetsOverriddenByCanary } from "../read/units-and-tools";
import { evaluationRunTimeline, explainEvaluationRun } from "../read/run-timeline";
import { ingestRuns } from "../ingest/ingest-runs";
import { evaluationSummary } from "../read/summary";

// Canary checks of ingested resets (docs/evaluations.md, Rule 2), on a real PostgreSQL: the worked example of
// docs/evaluations.md with r1's transfer settled at 10:00:08 and a verified reset of the surface
// before r3 at 10:00:20, which makes r3 its own unit unless a canary survived the reset.
let db: Db;

useTestDatabase((database) => (db = database.db));

type Canary = { surface: string; planted: string; found: boolean; evidence: string | Record<string, unknown> };
const FOUND: Canary = {
  surface: SURFACE,
  planted: "canary-7f3a in balance note",
  found: true,
  evidence: { key: "balance.note", value: "canary-7f3a" },
};
const CLEAN: Canary = {
  surface: SURFACE,
  planted: "canary-7f3a in balance note",
  found: false,
  evidence: "searched 12 keys and the audit log: no match",
};

/** The worked example with r1's write settled (terminal evidence at 10:00:08) and r3 resetting the surface first, verified. */
function runs(canary?: Canary) {
  const example = workedExample();
  Object.assign(example[0]!.effects![0]!, { resolution: { status: "completed", at: at(8), evidence: "ledger entry 8812" } });
  Object.assign(example[2]!, {
    resets: [{ surface: SURFACE, at: at(20), verified: true, evidence: "read back 100", ...(canary && { canary }) }],
  });
  return example;
}
const units = async (id: string) => (await evaluationSummary(db, id)).units;

describe("canary checks of ingested resets", () => {
  it("a posted canary that survived makes the verified reset break nothing; one not found changes nothing", async () => {
    const id = await createEvaluation(db, { name: "posted canaries", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, runs());
    expect(await units(id)).toEqual({ runRows: 3, analysisUnits: 2, largest: 2 });

    expect(await appendResetCanary(db, id, "r3", CLEAN, null)).toMatchObject({ resetAt: at(20), verified: true });
    expect(await units(id)).toEqual({ runRows: 3, analysisUnits: 2, largest: 2 });

    expect(await appendResetCanary(db, id, "r3", { ...FOUND, at: at(20) }, null)).toMatchObject({ verified: false });
    expect(await units(id)).toEqual({ runRows: 3, analysisUnits: 1, largest: 3 });
    const r3 = await db.evaluationRun.findUniqueOrThrow({
      where: { evaluationId_externalId: { evaluationId: id, externalId: "r3" } },
      select: { inheritedState: true },
    });
    expect(r3.inheritedState).toBe("internal");
    // Append-only: both checks are kept, and the reset itself still says verified as the harness recorded it.
    expect(await db.evaluationResetCanary.count({ where: { evaluationId: id, source: "posted" } })).toBe(2);
    expect((await db.evaluationReset.findFirstOrThrow({ where: { evaluationId: id } })).verified).toBe(true);
    // The run page and the units panel say why.
    expect(await resetsOverriddenByCanary(db, id)).toBe(1);
    const detail = (await getEvaluationRun(db, id, "r3"))!;
    expect(detail.resets[0]!.canaries.map((c) => [c.found, c.source])).toEqual([
      [false, "posted"],
      [true, "posted"],
    ]);
    expect(explainEvaluationRun(detail, () => "read_only").notes).toContain(
      `Its verified reset of ${SURFACE} counts as not verified: a canary planted before it was found after it, so it breaks no route between runs.`,
    );
    expect(evaluationRunTimeline(detail).find((e) => e.kind === "reset")?.label).toBe(
      `Reset of ${SURFACE}, recorded verified, but its canary (${FOUND.planted}) was found after it: counted as not verified`,
    );
    // A run re-sent unchanged keeps the posted checks.
    expect((await ingestRuns(db, id, runs())).map((r) => r.status)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(await units(id)).toMatchObject({ analysisUnits: 1 });
  });

  it("a canary on the reset in the ingested run counts the same, on the first batch and when the run is re-sent", async () => {
    const id = await createEvaluation(db, { name: "recorded canaries", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, runs(FOUND));
    expect(await units(id)).toEqual({ runRows: 3, analysisUnits: 1, largest: 3 });
    expect((await ingestRuns(db, id, runs(CLEAN))).map((r) => r.status)).toEqual(["unchanged", "unchanged", "updated"]);
    expect(await units(id)).toEqual({ runRows: 3, analysisUnits: 2, largest: 2 });
    expect(await db.evaluationResetCanary.findMany({ where: { evaluationId: id }, select: { found: true, source: true } })).toEqual([
      { found: false, source: "record" },
    ]);
  });

  it("refuses a canary for no such reset or run naming the field, a canary of another surface, and an ambiguous reset", async () => {
    const id = await createEvaluation(db, { name: "bad canaries", effectPolicy: WORKED_POLICY }, null);
    await ingestRuns(db, id, runs());
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: DomainError) => [error.kind, error.field],
      );
    expect(await refusal(appendResetCanary(db, id, "r3", { ...FOUND, surface: "repo:main" }, null))).toEqual(["not_found", "surface"]);
    expect(await refusal(appendResetCanary(db, id, "r3", { ...FOUND, at: at(21) }, null))).toEqual(["not_found", "at"]);
    expect(await refusal(appendResetCanary(db, id, "r9", FOUND, null))).toEqual(["not_found", "surface"]);
    const twice = runs();
    Object.assign(twice[2]!, {
      resets: [
        { surface: SURFACE, at: at(20), verified: true },
        { surface: SURFACE, at: at(22), verified: true },
      ],
    });
    await ingestRuns(db, id, twice);
    expect(await refusal(appendResetCanary(db, id, "r3", FOUND, null))).toEqual(["conflict", "at"]);
    expect(await db.evaluationResetCanary.count({ where: { evaluationId: id } })).toBe(0);

    const [mismatch] = await ingestRuns(db, id, [
      {
        ...runs(CLEAN)[2]!,
        externalId: "r4",
        resets: [{ surface: SURFACE, at: at(20), verified: true, canary: { ...CLEAN, surface: "repo:main" } }],
      },
    ]);
    expect(mismatch).toMatchObject({ status: "error", error: { field: "runs.0.resets.0.canary.surface" } });
  });
});
