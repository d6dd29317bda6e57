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
  if (expected === 1)
    return { value: null, reason: `both reviewers used only one code (${[...categories][0]}): agreement beyond chance is undefined` };
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

export interface RatedCell<C extends string> {
  item: string;
  rater: string;
  code: C;
}

export interface FieldAgreement {
  /** Reviewers whose codes are compared, and the items (protocols) compared. */
  raters: string[];
  items: number;
  percent: { agreed: number; of: number };
  statistic: "cohen" | "fleiss" | null;
  kappa: Kappa;
  /** Items on which the reviewers gave different codes. */
  disagreements: string[];
}

/**
 * Agreement on one field: compared over the items with the most ratings any item has (at least
 * two), since Fleiss' kappa needs the same number of ratings per item but not the same raters. When
 * every reviewer coded every compared item this is "the items all of them coded", as before; a team
 * that double-codes each protocol with a different pair is still compared, over all its pairs.
 * Cohen's kappa when the same two reviewers rated every compared item, Fleiss' otherwise.
 */
export function fieldAgreement<C extends string>(cells: RatedCell<C>[]): FieldAgreement {
  const byItem = new Map<string, Map<string, C>>();
  for (const c of cells) byItem.set(c.item, (byItem.get(c.item) ?? new Map()).set(c.rater, c.code));
  const perItem = Math.max(0, ...[...byItem.values()].map((ratings) => ratings.size));
  const compared =
    perItem < 2 ? [] : [...byItem.entries()].filter(([, ratings]) => ratings.size === perItem).sort(([a], [b]) => a.localeCompare(b));
  const raters = [...new Set(compared.flatMap(([, ratings]) => [...ratings.keys()]))].sort();
  if (raters.length < 2) {
    const coded = [...new Set(cells.map((c) => c.rater))].sort();
    return {
      raters: coded,
      items: 0,
      percent: { agreed: 0, of: 0 },
      statistic: null,
      kappa: { value: null, reason: "fewer than two reviewers coded this field" },
      disagreements: [],
    };
  }
  const ratings = compared.map(([, r]) => [...r.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, code]) => code));
  const disagreements = compared.filter(([, r]) => new Set(r.values()).size > 1).map(([item]) => item);
  const cohen = raters.length === 2;
  const kappa = cohen ? cohensKappa(ratings.map(([a, b]) => [a!, b!] as [C, C])) : fleissKappa(ratings);
  return {
    raters,
    items: compared.length,
    percent: percentAgreement(ratings),
    statistic: cohen ? "cohen" : "fleiss",
    kappa,
    disagreements,
  };
}

/** Below this many protocols coded by every reviewer, a kappa swings with a single cell. */
export const MIN_ITEMS_FOR_KAPPA = 5;

/**
 * A caveat for a kappa that rests on too few cells (one protocol can give Fleiss -0.500), or null
 * when it rests on enough. Percent agreement is shown either way, with its n/N.
 */
export function agreementCaveat(agreement: Pick<FieldAgreement, "items" | "kappa">): string | null {
  if (agreement.kappa.value === null || agreement.items >= MIN_ITEMS_FOR_KAPPA) return null;
  return `rests on ${agreement.items} protocol${agreement.items === 1 ? "" : "s"} compared (fewer than ${MIN_ITEMS_FOR_KAPPA}): one cell more or less can change it a lot, so read it as a tally, not a measure of agreement`;
}
