// Inter-rater agreement for the protocol review, as tested pure functions (no maintained npm package
// computes Cohen's or Fleiss' kappa, STACK.md). Items are cells; ratings are codes.

/** A kappa, or why it is undefined: when every rating falls in one category, chance agreement is 1. */
export type Kappa = { value: number } | { value: null; reason: string };

/** Share of items on which every rater gave the same rating. Items rated by fewer than two raters are skipped. */
export function percentAgreement<C extends string>(items: C[][]): { agreed: number; of: number } {
  const rated = items.filter((ratings) => ratings.length >= 2);
  return { agreed: rated.filter((ratings) => ratings.every((r) => r === ratings[0])).length, of: rated.length };
}

/** Cohen's kappa for two raters: pairs [rater A's rating, rater B's rating], one per item. */
export function cohensKappa<C extends string>(pairs: [C, C][]): Kappa {
  if (pairs.length === 0) return { value: null, reason: "no item was rated by both reviewers" };
  const n = pairs.length;
  const observed = pairs.filter(([a, b]) => a === b).length / n;
  const categories = new Set(pairs.flat());
  let expected = 0;
  for (const c of categories) {
    const a = pairs.filter(([x]) => x === c).length / n;
    const b = pairs.filter(([, y]) => y === c).length / n;
    expected += a * b;
  }
  if (expected === 1) return { value: null, reason: `both reviewers used only one code (${[...categories][0]}): agreement beyond chance is undefined` };
  return { value: (observed - expected) / (1 - expected) };
}

/**
 * Fleiss' kappa for any number of raters: per item, the ratings it received. Every item must have
 * the same number of ratings (at least two), as the statistic assumes.
 */
export function fleissKappa<C extends string>(items: C[][]): Kappa {
  if (items.length === 0) return { value: null, reason: "no item was rated" };
  const raters = items[0]!.length;
  if (raters < 2) return { value: null, reason: "Fleiss' kappa needs at least two ratings per item" };
  if (items.some((ratings) => ratings.length !== raters)) return { value: null, reason: "every item needs the same number of ratings" };
  const categories = [...new Set(items.flat())];
  const n = items.length;
  let meanItemAgreement = 0;
  const totals = new Map<C, number>();
  for (const ratings of items) {
    let agreeingPairs = 0;
    for (const c of categories) {
      const count = ratings.filter((r) => r === c).length;
      agreeingPairs += count * (count - 1);
      totals.set(c, (totals.get(c) ?? 0) + count);
    }
    meanItemAgreement += agreeingPairs / (raters * (raters - 1)) / n;
  }
  const expected = categories.reduce((sum, c) => sum + ((totals.get(c) ?? 0) / (n * raters)) ** 2, 0);
  if (expected === 1) return { value: null, reason: `every rating used one code (${categories[0]}): agreement beyond chance is undefined` };
  return { value: (meanItemAgreement - expected) / (1 - expected) };
}
