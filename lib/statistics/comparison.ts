// Comparisons that survive the bounds (docs/statistics.md; the paper, §3: "the bound supports a
// definitive conclusion only when every value in the justified range leads to the same result").
// Two or more evaluations under one exclusion rule: each one's reported rate, final-only rate,
// justified range (its unresolved runs counted as failures, then as successes) and interval; the
// ranking under endpoint scoring against final-only scoring; and a verdict per pair. Each
// evaluation's unresolved runs are its own, so one may resolve one way and the other the other
// way: a pair is judged on every combination of values in the two ranges.
import { z } from "zod";
import type { RunClassification } from "../replay/rules/classification";
import { applyExclusionRule, evaluationOutcomes, type ExclusionRule, type OutcomeCounts } from "./exclusion-rule";
import { UNRESOLVED_WORDS, type Verdict } from "./sensitivity";
import { wilsonInterval, type Interval } from "./wilson";

/** The most evaluations one comparison holds. */
export const MAX_COMPARED = 10;

/** Two to MAX_COMPARED distinct evaluation ids, in the order compared; messages name `field`. */
export function comparedIdsSchema(field: string) {
  return z
    .array(z.uuid(`${field} must be evaluation ids (UUIDs)`), `${field} must be a list of evaluation ids`)
    .min(2, `${field} must name at least two evaluations`)
    .max(MAX_COMPARED, `${field} must name at most ${MAX_COMPARED} evaluations`)
    .refine((ids) => new Set(ids).size === ids.length, `${field} must not repeat an evaluation`);
}

/** The same ids as a query parameter: `a,b,c`. */
export function comparedIdsParamSchema(field: string) {
  return z
    .string(`${field} must be evaluation ids separated by commas`)
    .transform((raw) =>
      raw
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== ""),
    )
    .pipe(comparedIdsSchema(field));
}

/** One evaluation's counts, as its summary aggregates them, and the rule it declared. */
export interface ComparisonInput {
  id: string;
  name: string;
  runs: number;
  /** Endpoint label success, all runs. */
  reportedSuccesses: number;
  finalRuns: number;
  finalSuccesses: number;
  unresolved: number;
  /** The runs whose class is not completed (an importer's environment failures), by outcome: the rule treats them by their class. */
  otherClasses?: Partial<Record<RunClassification, OutcomeCounts>>;
  declaredRule: { version: number; hash: string };
}

/** n/N, its rate (null when N = 0) and its 95 % Wilson interval. */
export interface Figure {
  n: number;
  N: number;
  rate: number | null;
  wilson95: Interval | null;
}

export interface ComparedEvaluation {
  id: string;
  name: string;
  /** As the harness recorded it at the endpoint: every run, its endpoint label. */
  reported: Figure;
  /** Final runs only. */
  finalOnly: Figure;
  /** The headline under the comparison's rule. */
  underRule: Figure;
  /** Unresolved runs counted as failures (lower) and as successes (upper), under the rule's classes; `wilson95` spans the lower's lower bound to the upper's upper bound. */
  justifiedRange: { lower: Figure; upper: Figure; wilson95: Interval | null };
  /** 1 = highest; tied rates share a rank; null without runs. */
  rank: { endpoint: number | null; finalOnly: number | null };
}

export interface PairVerdict {
  a: string;
  b: string;
  verdict: Verdict;
  /** The one ahead wherever it holds (or is merely not separable); null when it flips or ties. */
  leader: string | null;
  /** Who is ahead under each scoring, null on a tie or without runs. */
  leaderEndpoint: string | null;
  leaderFinalOnly: string | null;
  why: string;
}

export interface Comparison {
  /** The one rule applied to every evaluation. */
  rule: { version: number; hash: string };
  /** Whether the evaluations' declared rules differ from each other or from the applied one, in words. */
  ruleNote: string;
  rulesDiffer: boolean;
  evaluations: ComparedEvaluation[];
  /** Evaluation ids, best first, under each scoring; `changed` when the orders differ. */
  ranking: { endpoint: string[]; finalOnly: string[]; changed: boolean };
  pairs: PairVerdict[];
  /** The ranking by the headline under the applied rule and under each alternative treatment of unresolved runs (the applied first). */
  ruleSensitivity: Array<{ rule: string; ranking: string[] }>;
  /** One per pair whose leader changes between those rules, in words; empty when every pair keeps its order. */
  ruleWarnings: string[];
}

const figure = (n: number, N: number): Figure => ({ n, N, rate: N === 0 ? null : n / N, wilson95: wilsonInterval(n, N) });
const ruled = (rule: ExclusionRule, input: ComparisonInput, unresolved: ExclusionRule["unresolved"]): Figure => {
  const { n, N } = applyExclusionRule({ ...rule, unresolved }, evaluationOutcomes(input, input.otherClasses));
  return figure(n, N);
};

/** Competition ranks ("1, 1, 3") by rate, highest first; no rate, no rank. */
function ranks(figures: ReadonlyArray<{ id: string; rate: number | null }>): Map<string, number | null> {
  const ranked = new Map<string, number | null>();
  for (const { id, rate } of figures)
    ranked.set(id, rate === null ? null : 1 + figures.filter((other) => other.rate !== null && other.rate > rate).length);
  return ranked;
}

/** Ids ordered by rank (then by the order given); those without a rank last. */
const order = (ids: readonly string[], rank: Map<string, number | null>): string[] =>
  ids
    .map((id, i) => ({ id, i, r: rank.get(id) ?? Infinity }))
    .sort((x, y) => x.r - y.r || x.i - y.i)
    .map((x) => x.id);

const ahead = (a: ComparedEvaluation, b: ComparedEvaluation, pick: (e: ComparedEvaluation) => Figure): string | null => {
  const x = pick(a).rate;
  const y = pick(b).rate;
  return x === null || y === null || x === y ? null : x > y ? a.id : b.id;
};

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;

/**
 * The verdict on "one of A and B has the higher true rate":
 * - "flips within it": the justified ranges [lower, upper] overlap, so some values in them put A
 *   ahead and others put B ahead (or tie them): unless both are the same single point;
 * - "holds across the justified range": one's lower end is above the other's upper end, and the
 *   Wilson interval of that lower end is above the Wilson interval of that upper end (the
 *   sampling error, at the least favourable end, does not reach across either);
 * - "not separable at this sample size": otherwise: the ranges are apart (or are one equal point)
 *   but those intervals overlap, or a side has no runs.
 */
export function pairVerdict(a: ComparedEvaluation, b: ComparedEvaluation): PairVerdict {
  const base = { a: a.id, b: b.id, leaderEndpoint: ahead(a, b, (e) => e.reported), leaderFinalOnly: ahead(a, b, (e) => e.finalOnly) };
  const [aLow, aHigh, bLow, bHigh] = [
    a.justifiedRange.lower.rate,
    a.justifiedRange.upper.rate,
    b.justifiedRange.lower.rate,
    b.justifiedRange.upper.rate,
  ];
  if (aLow === null || aHigh === null || bLow === null || bHigh === null)
    return { ...base, verdict: "not separable at this sample size", leader: null, why: "a side has no runs under the rule" };
  const range = (e: ComparedEvaluation, low: number, high: number) => `${e.name} ${pct(low)}–${pct(high)}`;
  if (!(aLow > bHigh) && !(bLow > aHigh)) {
    if (aLow === aHigh && bLow === bHigh && aLow === bLow)
      return {
        ...base,
        verdict: "not separable at this sample size",
        leader: null,
        why: `both rates are ${pct(aLow)} with nothing unresolved`,
      };
    return {
      ...base,
      verdict: "flips within it",
      leader: null,
      why: `the justified ranges overlap (${range(a, aLow, aHigh)}, ${range(b, bLow, bHigh)}): resolving the unresolved runs can put either ahead`,
    };
  }
  const [leader, other] = aLow > bHigh ? [a, b] : [b, a];
  const leaderLow = leader.justifiedRange.lower.wilson95!;
  const otherHigh = other.justifiedRange.upper.wilson95!;
  if (leaderLow[0] > otherHigh[1]) {
    return {
      ...base,
      verdict: "holds across the justified range",
      leader: leader.id,
      why: `${leader.name}'s lowest value's interval starts at ${pct(leaderLow[0])}, above ${other.name}'s highest value's interval, which ends at ${pct(otherHigh[1])}`,
    };
  }
  return {
    ...base,
    verdict: "not separable at this sample size",
    leader: leader.id,
    why: `${leader.name} is ahead across the justified ranges, but its lowest value's interval [${pct(leaderLow[0])}, ${pct(leaderLow[1])}] overlaps ${other.name}'s highest value's interval [${pct(otherHigh[0])}, ${pct(otherHigh[1])}]`,
  };
}

/** The applied rule, then its alternatives for unresolved runs: the rows of the comparison's sensitivity. */
function ruleAlternatives(rule: ExclusionRule): Array<{ rule: string; unresolved: ExclusionRule["unresolved"] }> {
  const others = (["count_as_failure", "count_as_success", "exclude"] as const).filter((u) => u !== rule.unresolved);
  return [
    { rule: `applied (version ${rule.version}): ${UNRESOLVED_WORDS[rule.unresolved]}`, unresolved: rule.unresolved },
    ...others.map((u) => ({ rule: UNRESOLVED_WORDS[u], unresolved: u })),
  ];
}

/**
 * Rankings by the headline under each rule, and a warning for each pair whose leader (the higher
 * rate; a tie or no runs is no leader) is not the same under every rule.
 */
export function comparisonRuleSensitivity(
  inputs: readonly ComparisonInput[],
  rule: ExclusionRule,
): Pick<Comparison, "ruleSensitivity" | "ruleWarnings"> {
  const rows = ruleAlternatives(rule).map(({ rule: words, unresolved }) => ({
    words,
    figures: new Map(inputs.map((input) => [input.id, ruled(rule, input, unresolved)])),
  }));
  const ids = inputs.map((input) => input.id);
  const ruleSensitivity = rows.map(({ words, figures }) => ({
    rule: words,
    ranking: order(ids, ranks(ids.map((id) => ({ id, rate: figures.get(id)!.rate })))),
  }));
  const ruleWarnings = inputs.flatMap((a, i) =>
    inputs.slice(i + 1).flatMap((b) => {
      // The leader by id: two evaluations may share a name.
      const leaders = rows.map(({ words, figures }) => {
        const [x, y] = [figures.get(a.id)!, figures.get(b.id)!];
        const leader = x.rate === null || y.rate === null || x.rate === y.rate ? null : x.rate > y.rate ? a : b;
        return { words, leader, text: `${a.name} ${x.n}/${x.N}, ${b.name} ${y.n}/${y.N}` };
      });
      if (new Set(leaders.map((l) => l.leader?.id ?? null)).size === 1) return [];
      const [first, other] = [leaders[0]!, leaders.find((l) => l.leader?.id !== leaders[0]!.leader?.id)!];
      const named = (leader: ComparisonInput | null) => leader?.name ?? "neither";
      return [
        `${a.name} vs ${b.name}: ${named(first.leader)} leads under ${first.words} (${first.text}), ${named(other.leader)} under ${other.words} (${other.text}); the order depends on the exclusion rule`,
      ];
    }),
  );
  return { ruleSensitivity, ruleWarnings };
}

/** The comparison of two or more evaluations under one rule (`ruleIdentity` is the rule's version and hash; `appliedFrom` names whose declared rule it is, for the note). */
export function compareEvaluations(
  inputs: readonly ComparisonInput[],
  rule: ExclusionRule,
  ruleIdentity: { version: number; hash: string },
  appliedFrom?: string,
): Comparison {
  if (inputs.length < 2) throw new RangeError(`compareEvaluations: two or more evaluations, got ${inputs.length}`);
  const figures = inputs.map((input) => ({
    input,
    reported: figure(input.reportedSuccesses, input.runs),
    finalOnly: figure(input.finalSuccesses, input.finalRuns),
    underRule: ruled(rule, input, rule.unresolved),
    lower: ruled(rule, input, "count_as_failure"),
    upper: ruled(rule, input, "count_as_success"),
  }));
  const endpointRank = ranks(figures.map((f) => ({ id: f.input.id, rate: f.reported.rate })));
  const finalRank = ranks(figures.map((f) => ({ id: f.input.id, rate: f.finalOnly.rate })));
  const evaluations: ComparedEvaluation[] = figures.map(({ input, reported, finalOnly, underRule, lower, upper }) => ({
    id: input.id,
    name: input.name,
    reported,
    finalOnly,
    underRule,
    justifiedRange: { lower, upper, wilson95: lower.wilson95 && upper.wilson95 ? [lower.wilson95[0], upper.wilson95[1]] : null },
    rank: { endpoint: endpointRank.get(input.id) ?? null, finalOnly: finalRank.get(input.id) ?? null },
  }));
  const ids = inputs.map((input) => input.id);
  const endpoint = order(ids, endpointRank);
  const finalOnly = order(ids, finalRank);
  const pairs = evaluations.flatMap((a, i) => evaluations.slice(i + 1).map((b) => pairVerdict(a, b)));
  const declared = new Set(inputs.map((input) => `${input.declaredRule.version}:${input.declaredRule.hash}`));
  const rulesDiffer = declared.size > 1 || !declared.has(`${ruleIdentity.version}:${ruleIdentity.hash}`);
  const plain = `rule version ${ruleIdentity.version} (${ruleIdentity.hash.slice(0, 12)}…)`;
  const applied = appliedFrom ? `${appliedFrom}'s ${plain}` : plain;
  const ruleNote = rulesDiffer
    ? `Their declared rules differ (${inputs.map((input) => `${input.name}: version ${input.declaredRule.version}, ${input.declaredRule.hash.slice(0, 12)}…`).join("; ")}); this comparison applies ${applied} to every one.`
    : `Every evaluation declared ${plain}; it applies to every one.`;
  return {
    rule: { version: ruleIdentity.version, hash: ruleIdentity.hash },
    ruleNote,
    rulesDiffer,
    evaluations,
    ranking: {
      endpoint,
      finalOnly,
      changed: endpoint.some((id, i) => id !== finalOnly[i]) || evaluations.some((e) => e.rank.endpoint !== e.rank.finalOnly),
    },
    pairs,
    ...comparisonRuleSensitivity(inputs, rule),
  };
}
