import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { compareStoredEvaluations } from "../evaluations/read/compare";
import { createEvaluation } from "../evaluations/manage/create-evaluation";
import { evaluationStatistics } from "../evaluations/read/evaluation-statistics";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { evaluationSummary } from "../evaluations/read/summary";
import { createEvaluationBodySchema, evaluationRuleChangeBodySchema } from "../evaluations/evaluation-requests";
import { createQueuedExperiment } from "../experiments/create-experiment";
import { experimentStatistics } from "../experiments/experiment-statistics";
import { DomainError } from "../errors";
import { replayConfigSchema } from "../replay/rules/config";
import { useTestDatabase } from "../testing/use-test-database";
import { at } from "../testing/evaluation-example";
import { DEFAULT_EVALUATION_RULE, declarationOf, type ExclusionRuleDeclaration } from "./exclusion-rule";
import { exclusionRuleIdentity } from "./exclusion-rule-hash";
import { changeExclusionRule, exclusionRuleHistory } from "./exclusion-rule-store";
import { wilsonInterval } from "./wilson";

// Declared exclusion rules stored, frozen and versioned on a real PostgreSQL, and
// the legal-action rate over the calls ingested runs carry (docs/statistics.md).
let db: Db;

useTestDatabase((database) => (db = database.db));

const run = (externalId: string, second: number, endpointLabel: "success" | "failure", extra: Record<string, unknown> = {}) => ({
  externalId,
  taskId: "t",
  startedAt: at(second),
  scoredAt: at(second + 1),
  endpointLabel,
  ...extra,
});
/** s1 final success, f1 final failure, u1 unresolved (its transfer pending at scoring) though its endpoint label is success. */
const threeRuns = () => [
  run("s1", 0, "success"),
  run("f1", 2, "failure"),
  run("u1", 4, "success", {
    effects: [{ effectId: "e1", tool: "bank.transfer", handle: "tx-1", requestedAt: at(4), statusAtScoring: "pending" }],
  }),
];
const POLICY = { tools: { "bank.transfer": "async_handle" as const } };
const AS_SUCCESS: ExclusionRuleDeclaration = {
  ...declarationOf(DEFAULT_EVALUATION_RULE),
  unresolved: "count_as_success",
  eligiblePopulation: "every sampled task attempt",
  threshold: 0.6,
};

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("an evaluation's declared exclusion rule", () => {
  it("is the default rule as version 1 when none is declared, with the code's canonical JSON and hash", async () => {
    const id = await createEvaluation(db, { name: "undeclared" }, null);
    const { current, versions } = await exclusionRuleHistory(db, { kind: "evaluation", id });
    const identity = exclusionRuleIdentity(DEFAULT_EVALUATION_RULE);
    expect(versions).toHaveLength(1);
    expect(current).toMatchObject({
      version: 1,
      hash: identity.hash,
      canonical: identity.canonical,
      rule: DEFAULT_EVALUATION_RULE,
      reason: "the default rule: none was declared at creation",
    });
  });

  it("is stored as declared, frozen, changed only as a new version from the current one, and named by every figure", async () => {
    const id = await createEvaluation(db, { name: "declared", effectPolicy: POLICY, exclusionRule: AS_SUCCESS }, null);
    await ingestRuns(db, id, threeRuns());
    const declared = await evaluationStatistics(db, id);
    expect(declared.exclusionRule).toMatchObject({
      version: 1,
      hash: exclusionRuleIdentity({ ...AS_SUCCESS, version: 1 }).hash,
      declaredBy: expect.stringContaining("declared at creation"),
    });
    // The same in parts, for pages that show the instant in the reader's time.
    expect(declared.exclusionRule.declared).toEqual({
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      by: null,
      reason: expect.stringContaining("declared at creation"),
      note: expect.stringContaining("an ingested run's class is the one its record"),
    });
    expect(declared.exclusionRule.declaredBy).toContain(declared.exclusionRule.declared.at);
    // Unresolved as success: s1 and u1 of 3 = 2/3, over the declared population.
    expect(declared.rates[0]).toMatchObject({
      name: "success rate (rule version 1)",
      n: 2,
      N: 3,
      population: expect.stringMatching(/^every sampled task attempt, .*; an unresolved run counts as a success$/),
    });
    expect(declared.sensitivity.map((r) => [r.rule, r.n, r.N])).toEqual([
      ["declared (version 1)", 2, 3],
      ["unresolved as failure", 1, 3],
      ["unresolved excluded", 1, 2],
    ]);
    // Target 60 %: 2/3 = 66.7 % is above it under the declared rule, 1/3 below it with unresolved as failure.
    expect(declared.thresholdChecks).toEqual([
      {
        measure: "success rate",
        threshold: 0.6,
        verdict: "flips within it",
        warning:
          "success rate: at or above the target 60.0% under declared (version 1) (2/3), below it under unresolved as failure (1/3); the conclusion depends on the exclusion rule",
      },
    ]);

    const changed = await changeExclusionRule(
      db,
      { kind: "evaluation", id },
      { baseVersion: 1, reason: "a success needs evidence", rule: { ...AS_SUCCESS, unresolved: "count_as_failure" } },
      null,
    );
    expect(changed).toEqual({
      version: 2,
      hash: exclusionRuleIdentity({ ...AS_SUCCESS, unresolved: "count_as_failure", version: 2 }).hash,
    });
    const after = await evaluationStatistics(db, id);
    expect(after.exclusionRule).toMatchObject({
      version: 2,
      hash: changed.hash,
      declaredBy: expect.stringContaining("a success needs evidence"),
    });
    expect(after.rates[0]).toMatchObject({
      name: "success rate (rule version 2)",
      n: 1,
      N: 3,
      population: expect.stringMatching(/; an unresolved run counts as a failure$/),
    });
    expect(after.sensitivity[0]).toMatchObject({ rule: "declared (version 2)", n: 1, N: 3 });

    // A change from version 1, made before someone else's version 2, is refused: nothing is written.
    const stale = await refusal(
      changeExclusionRule(db, { kind: "evaluation", id }, { baseVersion: 1, reason: "from an old tab", rule: AS_SUCCESS }, null),
    );
    expect(stale).toMatchObject({ kind: "conflict", code: "edit_conflict", field: "baseVersion", details: { current: { version: 2 } } });
    const history = await exclusionRuleHistory(db, { kind: "evaluation", id });
    expect(history.versions.map((v) => [v.version, v.reason, v.rule.unresolved])).toEqual([
      [2, "a success needs evidence", "count_as_failure"],
      [1, "declared at creation", "count_as_success"],
    ]);
    expect(
      await refusal(
        changeExclusionRule(
          db,
          { kind: "evaluation", id: "00000000-0000-4000-8000-000000000000" },
          { baseVersion: 1, reason: "x", rule: AS_SUCCESS },
          null,
        ),
      ),
    ).toMatchObject({ kind: "not_found" });
  });

  it("counts the units figures over the rows the rule keeps, as the design effect and its interval are", async () => {
    const id = await createEvaluation(
      db,
      { name: "excluding", effectPolicy: POLICY, exclusionRule: { ...AS_SUCCESS, unresolved: "exclude" } },
      null,
    );
    await ingestRuns(db, id, [
      ...threeRuns(),
      { externalId: "n1", taskId: "t", startedAt: at(6), unscoredReason: "the harness scored nothing" },
    ]);
    const { units } = await evaluationStatistics(db, id);
    // s1 and f1 kept, each its own unit; u1 excluded by the rule, n1 unscored: 2 rows in 2 units, 1/2, deff 1;
    // of every stored run, 4 rows in 4 units, as the summary (the page's cards) counts them.
    expect(units).toMatchObject({ runRows: 4, analysisUnits: 4, countedUnits: 2, designEffect: 1, effectiveN: 2, rows: { n: 1, N: 2 } });
    expect((await evaluationSummary(db, id)).units).toMatchObject({ runRows: 4, analysisUnits: 4 });
  });

  it("treats each ingested run by its class: an environment failure leaves the headline by default, reported apart, and counts when the rule keeps it", async () => {
    const id = await createEvaluation(db, { name: "classed", effectPolicy: POLICY }, null);
    const failed = (externalId: string, second: number, runClass: string) =>
      run(externalId, second, "failure", { runClass, runClassEvidence: "AgentDojo recorded the error APIError 500" });
    const ingested = await ingestRuns(db, id, [...threeRuns(), failed("e1", 6, "environment_failure"), failed("a1", 8, "agent_failure")]);
    expect(ingested.every((r) => r.status === "created")).toBe(true);
    const byDefault = await evaluationStatistics(db, id);
    // s1 kept (success), f1, a1 kept (failures), u1 unresolved as failure; e1 excluded and named: 1/4.
    expect(byDefault.rates[0]).toMatchObject({
      n: 1,
      N: 4,
      population: expect.stringContaining("less what rule version 1 excludes (environment failure: 1)"),
    });
    expect(byDefault.rates[1]).toMatchObject({ name: "reported success rate", n: 2, N: 5 }); // the harness's own labels, every scored run
    expect(byDefault.units).toMatchObject({ runRows: 5, countedUnits: 4, rows: { n: 1, N: 4 } });
    // The sensitivity now varies the environment failures: kept, e1 counts as the failure it is labelled.
    expect(byDefault.sensitivity).toContainEqual(expect.objectContaining({ n: 1, N: 5 }));
    // A rule that keeps environment failures counts e1 in N.
    await changeExclusionRule(
      db,
      { kind: "evaluation", id },
      {
        baseVersion: 1,
        reason: "the provider's errors are the agent's problem here",
        rule: { ...declarationOf(DEFAULT_EVALUATION_RULE), classes: { ...DEFAULT_EVALUATION_RULE.classes, environment_failure: "keep" } },
      },
      null,
    );
    const kept = await evaluationStatistics(db, id);
    expect(kept.rates[0]).toMatchObject({ n: 1, N: 5 });
    expect(kept.units).toMatchObject({ runRows: 5, countedUnits: 5, rows: { N: 5 } });
    // Compared with an evaluation of the same runs without classes, under this one's rule (version 2, which keeps them): the same n/N;
    // under the default rule (the other's, applied when it comes first) e1 leaves this one's N.
    const plain = await createEvaluation(db, { name: "unclassed", effectPolicy: POLICY }, null);
    await ingestRuns(db, plain, [...threeRuns(), run("e1", 6, "failure"), run("a1", 8, "failure")]);
    const headline = (c: Awaited<ReturnType<typeof compareStoredEvaluations>>, evaluation: string) =>
      c.evaluations.find((e) => e.id === evaluation)!.underRule;
    expect(headline(await compareStoredEvaluations(db, [plain, id]), id)).toMatchObject({ n: 1, N: 4 });
    expect(headline(await compareStoredEvaluations(db, [id, plain]), id)).toMatchObject({ n: 1, N: 5 });
  });

  it("refuses a rule an evaluation cannot apply, naming the field", () => {
    const bad = { ...AS_SUCCESS, classes: { ...AS_SUCCESS.classes, completed: "exclude" } };
    const created = createEvaluationBodySchema.safeParse({ name: "x", exclusionRule: bad });
    expect(created.success).toBe(false);
    expect(created.error!.issues[0]).toMatchObject({
      path: ["exclusionRule", "classes", "completed"],
      message: expect.stringContaining("classes.completed must be keep"),
    });
    const change = evaluationRuleChangeBodySchema.safeParse({ baseVersion: 1, reason: "x", rule: { ...AS_SUCCESS, threshold: 2 } });
    expect(change.error!.issues[0]).toMatchObject({ path: ["rule", "threshold"], message: "threshold must be between 0 and 1" });
  });
});

describe("an experiment's declared exclusion rule", () => {
  it("is stored at creation and versioned, and its statistics name the version", async () => {
    const rule: ExclusionRuleDeclaration = {
      ...declarationOf(DEFAULT_EVALUATION_RULE),
      classes: { ...DEFAULT_EVALUATION_RULE.classes, environment_failure: "keep" },
    };
    const id = await createQueuedExperiment(db, replayConfigSchema.parse({}), null, { name: "declared" }, rule);
    expect((await exclusionRuleHistory(db, { kind: "experiment", id })).current).toMatchObject({
      version: 1,
      hash: exclusionRuleIdentity({ ...rule, version: 1 }).hash,
      reason: "declared at creation",
    });
    await changeExclusionRule(
      db,
      { kind: "experiment", id },
      { baseVersion: 1, reason: "environment failures are the lab's", rule: declarationOf(DEFAULT_EVALUATION_RULE) },
      null,
    );
    const statistics = await experimentStatistics(db, id);
    expect(statistics.exclusionRule).toMatchObject({ version: 2, rule: { ...DEFAULT_EVALUATION_RULE, version: 2 } });
    expect(statistics.sensitivity[0]).toMatchObject({ measure: "completion rate", rule: "declared (version 2)" });
    expect(statistics.thresholdChecks).toEqual([]);
  });
});

describe("the legal-action rate", () => {
  it("counts legal calls over the calls whose outcome is recorded, beside the all-run success rate", async () => {
    const id = await createEvaluation(db, { name: "calls" }, null);
    await ingestRuns(db, id, [
      run("a", 0, "success", {
        toolCalls: [
          { tool: "read", outcome: "ok" },
          { tool: "send", outcome: "rejected" },
          { tool: "send", outcome: "ok" },
        ],
      }),
      run("b", 2, "failure", {
        toolCalls: [
          { tool: "pay", outcome: "error", error: "insufficient funds" },
          { tool: "pay", error: "timeout" },
          { tool: "read", outcome: "ok" },
          { tool: "read" },
        ],
      }),
    ]);
    const statistics = await evaluationStatistics(db, id);
    // 7 calls, 6 with an outcome: ok, rejected, ok, error, error (by its error), ok → 3 legal of 6.
    const legal = {
      name: "legal-action rate",
      n: 3,
      N: 6,
      wilson95: wilsonInterval(3, 6)!.map((v) => expect.closeTo(v, 12)),
      population: expect.stringContaining("1 of 7 carry none"),
    };
    expect(statistics.legalActions).toEqual({ available: true, rate: legal });
    expect(statistics.rates.map((r) => r.name)).toEqual([
      "success rate (rule version 1)",
      "reported success rate",
      "final-only success rate",
      "unresolved rate",
      "unscored runs",
      "endpoint ≠ terminal",
      "exposure rate",
      "legal-action rate",
    ]);
    expect(statistics.rates[0]).toMatchObject({ n: 1, N: 2 });
  });

  it("says why it cannot be computed when no call carries an outcome", async () => {
    const id = await createEvaluation(db, { name: "no outcomes" }, null);
    await ingestRuns(db, id, [run("a", 0, "success", { toolCalls: [{ tool: "read" }, { tool: "send" }] })]);
    const statistics = await evaluationStatistics(db, id);
    expect(statistics.legalActions).toEqual({
      available: false,
      reason: expect.stringContaining("none of the 2 tool calls carries an outcome"),
    });
    expect(statistics.rates.some((r) => r.name === "legal-action rate")).toBe(false);
    const none = await createEvaluation(db, { name: "no calls" }, null);
    await ingestRuns(db, none, [run("a", 0, "success")]);
    expect((await evaluationStatistics(db, none)).legalActions).toEqual({ available: false, reason: "no run carries a tool call" });
  });
});
