// The comparison of stored evaluations (docs/statistics.md, Comparisons that survive the bounds): their counts aggregated in PostgreSQL
// (the trigger-maintained evaluation_run_counts, one row per evaluation), compared by the pure
// compareEvaluations under one rule. One query schema for the API and the page; one answer schema.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { notFound } from "../../errors";
import { wilson95Schema } from "../../statistics/answer-schema";
import { compareEvaluations, comparedIdsParamSchema, type Comparison } from "../../statistics/comparison";
import { exclusionRuleSchema } from "../../statistics/exclusion-rule";
import { RUN_CLASSIFICATIONS } from "../../replay/rules/classification";
import { classCountsSql, classOutcomes } from "./evaluation-statistics";
import { VERDICTS } from "../../statistics/sensitivity";
import { attackTradeOffs } from "./attack-statistics";
import { attackTradeOffSchema, type AttackTradeOff } from "./attack-success";

/** `ids=a,b,c`: two to ten distinct evaluation ids. */
export const compareQuerySchema = z.strictObject({
  ids: comparedIdsParamSchema("ids"),
});
export type CompareQuery = z.infer<typeof compareQuerySchema>;

const count = z.number().int().min(0);
const figure = z.object({ n: count, N: count, rate: z.number().nullable(), wilson95: wilson95Schema });
const rank = z.number().int().min(1).nullable();

/** GET /api/v1/evaluations/compare?ids=…: the pure comparison's answer, field for field. */
export const comparisonAnswerSchema = z.object({
  rule: z.object({ version: z.number().int().min(1), hash: z.string() }),
  ruleNote: z.string(),
  rulesDiffer: z.boolean(),
  evaluations: z.array(
    z.object({
      id: z.uuid(),
      name: z.string(),
      reported: figure,
      finalOnly: figure,
      underRule: figure,
      justifiedRange: z.object({ lower: figure, upper: figure, wilson95: wilson95Schema }),
      rank: z.object({ endpoint: rank, finalOnly: rank }),
      /** Utility without attack, utility under attack and attack success (runs with a security label), each reported, final-only and in its justified range. */
      attack: attackTradeOffSchema,
    }),
  ),
  ranking: z.object({ endpoint: z.array(z.uuid()), finalOnly: z.array(z.uuid()), changed: z.boolean() }),
  pairs: z.array(
    z.object({
      a: z.uuid(),
      b: z.uuid(),
      verdict: z.enum(VERDICTS),
      leader: z.uuid().nullable(),
      leaderEndpoint: z.uuid().nullable(),
      leaderFinalOnly: z.uuid().nullable(),
      why: z.string(),
    }),
  ),
  ruleSensitivity: z.array(z.object({ rule: z.string(), ranking: z.array(z.uuid()) })),
  ruleWarnings: z.array(z.string()),
}) satisfies z.ZodType<Comparison & { evaluations: Array<{ attack: AttackTradeOff }> }>;
export type ComparisonAnswer = z.infer<typeof comparisonAnswerSchema>;

const int = z.coerce.number().int();
const ruleRow = z.object({ id: z.string(), version: z.number().int(), hash: z.string(), rule: exclusionRuleSchema });
const countsRow = z.object({
  id: z.string(),
  name: z.string(),
  runs: int,
  reported_successes: int,
  final_n: int,
  final_successes: int,
  unresolved: int,
});

/** The comparison of the evaluations `ids`, in that order, under the first one's declared exclusion rule; notFound naming the first unknown id. */
export async function compareStoredEvaluations(db: Db, ids: readonly string[]): Promise<ComparisonAnswer> {
  const rows = z.array(countsRow).parse(
    await db.$queryRaw`
      SELECT e.id::text AS id, e.name, counts.*
        FROM evaluations e CROSS JOIN LATERAL (
          -- The scored runs: an unscored run has no label and is in no rate's population.
          SELECT coalesce(sum(n) FILTER (WHERE finality <> 'unscored'), 0) AS runs,
                 coalesce(sum(n) FILTER (WHERE endpoint_label = 'success'), 0) AS reported_successes,
                 coalesce(sum(n) FILTER (WHERE finality = 'final'), 0) AS final_n,
                 coalesce(sum(n) FILTER (WHERE finality = 'final' AND endpoint_label = 'success'), 0) AS final_successes,
                 coalesce(sum(n) FILTER (WHERE finality = 'unresolved'), 0) AS unresolved
            FROM evaluation_run_counts c WHERE c.evaluation_id = e.id) AS counts
       WHERE e.id = ANY(${ids}::uuid[])`,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing) throw notFound(`evaluation ${missing}`);
  // Each one's current declared rule; the first evaluation's applies to all (docs/statistics.md).
  const rules = new Map(
    z
      .array(ruleRow)
      .parse(
        await db.$queryRaw`
          SELECT DISTINCT ON (evaluation_id) evaluation_id::text AS id, version, hash, rule
            FROM exclusion_rule_versions WHERE evaluation_id = ANY(${ids}::uuid[])
           ORDER BY evaluation_id, version DESC`,
      )
      .map((row) => [row.id, row]),
  );
  const classed = z
    .array(z.object({ evaluation_id: z.string(), run_class: z.enum(RUN_CLASSIFICATIONS), successes: int, failures: int, unresolved: int }))
    .parse(await db.$queryRaw(classCountsSql(ids)));
  const inputs = ids.map((id) => {
    const row = byId.get(id)!;
    const declared = rules.get(id)!;
    return {
      id,
      name: row.name,
      runs: row.runs,
      reportedSuccesses: row.reported_successes,
      finalRuns: row.final_n,
      finalSuccesses: row.final_successes,
      unresolved: row.unresolved,
      otherClasses: classOutcomes(classed.filter((c) => c.evaluation_id === id)),
      declaredRule: { version: declared.version, hash: declared.hash },
    };
  });
  const applied = rules.get(ids[0]!)!;
  const comparison = compareEvaluations(inputs, applied.rule, { version: applied.version, hash: applied.hash }, inputs[0]!.name);
  const attack = await attackTradeOffs(
    db,
    new Map(
      rows.map((row) => [
        row.id,
        {
          runs: row.runs,
          successes: row.reported_successes,
          final: row.final_n,
          finalSuccesses: row.final_successes,
          unresolved: row.unresolved,
        },
      ]),
    ),
  );
  return comparisonAnswerSchema.parse({
    ...comparison,
    evaluations: comparison.evaluations.map((evaluation) => ({ ...evaluation, attack: attack.get(evaluation.id)! })),
  });
}
