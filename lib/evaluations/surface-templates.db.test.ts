import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "../db/prisma";
import { useTestDatabase } from "../testing/use-test-database";
import { createEvaluation } from "./manage/create-evaluation";
import { getEvaluationRun } from "./read/evaluation-run";
import { ingestRuns } from "./ingest/ingest-runs";
import { openLiveRun } from "./live/open-live-run";
import { recordLiveEvents } from "./live/record-live-events";
import { scoreLiveRun } from "./live/score-live-run";
import { toolClassifier } from "./policy";
import { applyPendingPolicy } from "./policy-recompute/recompute";
import type { EffectPolicy } from "./effect-policy-schema";
import type { RunRecord } from "./run-record-schema";
import { setEffectPolicy } from "./policy-recompute/set-effect-policy";
import { evaluationSummary } from "./read/summary";
import { templateSuggestions } from "./read/template-suggestions";

// Surfaces from a tool's arguments on a real PostgreSQL: run fs-1 writes a.txt (write_file, then
// edit_file), run fs-2, with no reset between, reads it (read_text_file). Nothing in either record
// names a surface; the policy's templates do, so the two runs are one analysis unit and fs-2 is
// exposed (1/2), whichever way they came in, and a policy version without the templates splits them.
let db: Db;
useTestDatabase((database) => (db = database.db));

const TEMPLATED: EffectPolicy = {
  tools: {
    write_file: { class: "sync_confirmed", writes: "fs:{path}" },
    edit_file: { class: "sync_confirmed", writes: "fs:{path}" },
    read_text_file: { class: "read_only", reads: "fs:{path}" },
  },
};
const CLASSES_ONLY: EffectPolicy = { tools: { write_file: "sync_confirmed", edit_file: "sync_confirmed", read_text_file: "read_only" } };

const at = (s: number) => new Date(Date.UTC(2026, 11, 10, 9, 0, s)).toISOString();

/** The scenario's calls: each run's tool, arguments and time, and the run's start and scoring. */
const SCENARIO = [
  {
    externalId: "fs-1",
    startedAt: at(0),
    scoredAt: at(4),
    calls: [
      { tool: "write_file", arguments: { path: "a.txt", content: "balance=100" }, at: at(1) },
      { tool: "edit_file", arguments: { path: "a.txt", edits: [{ oldText: "balance=100", newText: "balance=95" }] }, at: at(2) },
    ],
  },
  {
    externalId: "fs-2",
    startedAt: at(10),
    scoredAt: at(13),
    calls: [{ tool: "read_text_file", arguments: { path: "a.txt" }, at: at(11) }],
  },
];

/** The scenario as ingested records: each call an effect that returned (completed) and a tool call, sharing a callId. */
const ingestedRuns = (): RunRecord[] =>
  SCENARIO.map((run) => ({
    externalId: run.externalId,
    taskId: "fs",
    startedAt: run.startedAt,
    scoredAt: run.scoredAt,
    endpointLabel: "success",
    toolCalls: run.calls.map((call, i) => ({ callId: `${run.externalId}-c${i}`, ...call, outcome: "ok" as const })),
    effects: run.calls.map((call, i) => ({
      effectId: `e${i}`,
      tool: call.tool,
      callId: `${run.externalId}-c${i}`,
      arguments: call.arguments,
      requestedAt: call.at,
      acknowledgedAt: call.at,
      statusAtScoring: "completed" as const,
    })),
  }));

/** The scenario as a recorder sends it: each call an effect_requested with its arguments, then its return. */
async function recordLive(evaluationId: string) {
  for (const run of SCENARIO) {
    await openLiveRun(db, evaluationId, { externalId: run.externalId, taskId: "fs", startedAt: run.startedAt });
    const events = run.calls.flatMap((call, i) => [
      { eventId: `${i}-req`, type: "effect_requested", at: call.at, effectId: `e${i}`, tool: call.tool, arguments: call.arguments },
      { eventId: `${i}-ret`, type: "effect_status", at: call.at, effectId: `e${i}`, status: "completed" },
    ]);
    expect((await recordLiveEvents(db, evaluationId, run.externalId, events)).errors).toEqual([]);
    await scoreLiveRun(db, evaluationId, run.externalId, { endpointLabel: "success", at: run.scoredAt });
  }
}

const separation = async (evaluationId: string) => {
  const summary = await evaluationSummary(db, evaluationId);
  return { units: summary.units.analysisUnits, exposures: summary.exposures };
};
const ONE_UNIT = { units: 1, exposures: { n: 1, of: 2 } };
const TWO_UNITS = { units: 2, exposures: { n: 0, of: 2 } };

const touches = async (evaluationId: string) =>
  z.array(z.object({ run: z.string(), surface: z.string(), op: z.string(), derived: z.boolean() })).parse(
    await db.$queryRaw`
        SELECT r.external_id AS run, t.surface, t.op, t.derived FROM evaluation_touches t JOIN evaluation_runs r ON r.id = t.run_id
         WHERE t.evaluation_id = ${evaluationId}::uuid ORDER BY r.external_id, t.at`,
  );
const DERIVED = [
  { run: "fs-1", surface: "fs:a.txt", op: "write", derived: true },
  { run: "fs-1", surface: "fs:a.txt", op: "write", derived: true },
  { run: "fs-2", surface: "fs:a.txt", op: "read", derived: true },
];

/** Saves `policy` as the next version and applies it, as the worker's job does. */
async function applyPolicy(evaluationId: string, policy: EffectPolicy) {
  await setEffectPolicy(db, evaluationId, policy, null);
  await applyPendingPolicy(db, evaluationId);
}

describe("surfaces from a tool's arguments", () => {
  it("join the ingested runs that share a file into one unit, and a re-sent run that no longer reads it leaves", async () => {
    const id = await createEvaluation(db, { name: "fs ingested", effectPolicy: TEMPLATED }, null);
    expect((await ingestRuns(db, id, ingestedRuns())).map((r) => r.status)).toEqual(["created", "created"]);
    expect(await touches(id)).toEqual(DERIVED);
    expect(await separation(id)).toEqual(ONE_UNIT);
    const summary = await evaluationSummary(db, id);
    expect(summary.final.n).toBe(2);
    // The run's page and API tell a derived touch from a recorded one.
    expect((await getEvaluationRun(db, id, "fs-2"))?.touches).toEqual([
      { surface: "fs:a.txt", op: "read", at: new Date(at(11)), public: false, derived: true },
    ]);

    // fs-2 re-sent reading another file: the changed path derives its touches again.
    const [, fs2] = ingestedRuns();
    const elsewhere = { ...fs2!, effects: fs2!.effects!.map((e) => ({ ...e, arguments: { path: "b.txt" } })) };
    expect((await ingestRuns(db, id, [elsewhere])).map((r) => r.status)).toEqual(["updated"]);
    expect(await separation(id)).toEqual(TWO_UNITS);
  });

  it("join the same runs recorded live, as the recorders send them", async () => {
    const id = await createEvaluation(db, { name: "fs live", effectPolicy: TEMPLATED }, null);
    await recordLive(id);
    expect(await touches(id)).toEqual(DERIVED);
    expect(await separation(id)).toEqual(ONE_UNIT);
  });

  it("are derived again by a policy version that changes them, once it is applied: plain classes split the runs, the templates join them again", async () => {
    for (const way of ["ingested", "live"] as const) {
      const id = await createEvaluation(db, { name: `fs ${way}, versions`, effectPolicy: TEMPLATED }, null);
      if (way === "ingested") await ingestRuns(db, id, ingestedRuns());
      else await recordLive(id);
      expect(await separation(id)).toEqual(ONE_UNIT);

      await setEffectPolicy(db, id, CLASSES_ONLY, null);
      // Saved, not applied: the figures stay the applied version's.
      expect(await separation(id)).toEqual(ONE_UNIT);
      await applyPendingPolicy(db, id);
      expect(await touches(id)).toEqual([]);
      expect(await separation(id)).toEqual(TWO_UNITS);
      const units = await db.evaluationUnit.count({ where: { evaluationId: id } });
      expect(units).toBe(0);

      await applyPolicy(id, TEMPLATED);
      expect(await touches(id)).toEqual(DERIVED);
      expect(await separation(id)).toEqual(ONE_UNIT);
      expect(await db.evaluationUnit.findMany({ where: { evaluationId: id }, select: { runs: true, surfaces: true } })).toEqual([
        { runs: 2, surfaces: ["fs:a.txt"] },
      ]);

      // A change of classes alone keeps the touches as they are.
      await applyPolicy(id, {
        tools: {
          ...TEMPLATED.tools,
          write_file: { class: "external", writes: "fs:{path}" },
          read_text_file: { class: "external", reads: "fs:{path}" },
        },
      });
      expect(await touches(id)).toEqual(DERIVED);
      expect(await separation(id)).toEqual(ONE_UNIT);
    }
  });

  it("are suggested from the calls' argument names and MCP's annotations for tools without templates, and applied only once saved", async () => {
    const id = await createEvaluation(db, { name: "fs suggested", effectPolicy: CLASSES_ONLY }, null);
    await ingestRuns(db, id, ingestedRuns());
    // As the page reads them from the MCP recorder's suggestions: edit_file annotated destructiveHint.
    const annotations = new Map([["edit_file", { destructiveHint: true }]]);
    const suggested = await templateSuggestions(db, id, CLASSES_ONLY, toolClassifier(CLASSES_ONLY), annotations);
    expect(suggested.map(({ tool, op, template }) => ({ tool, op, template }))).toEqual([
      { tool: "edit_file", op: "writes", template: "fs:{path}" },
      { tool: "read_text_file", op: "reads", template: "fs:{path}" },
      { tool: "write_file", op: "writes", template: "fs:{path}" },
    ]);
    expect(suggested[0]!.reason).toBe("argument path looks like it names state; annotated destructiveHint");
    expect(await touches(id)).toEqual([]);
    expect(await separation(id)).toEqual(TWO_UNITS);
    // Once the templates are in the policy, nothing is left to suggest.
    expect(await templateSuggestions(db, id, TEMPLATED, toolClassifier(TEMPLATED), annotations)).toEqual([]);
  });

  it("touch nothing for a call without the argument the template names", async () => {
    const id = await createEvaluation(db, { name: "fs without paths", effectPolicy: TEMPLATED }, null);
    const runs = ingestedRuns().map((run) => ({ ...run, effects: run.effects!.map(({ arguments: _dropped, ...e }) => e), toolCalls: [] }));
    await ingestRuns(db, id, runs);
    expect(await touches(id)).toEqual([]);
    expect(await separation(id)).toEqual(TWO_UNITS);
  });
});
