// What a run could have inherited from other runs (docs/evaluations.md, Rule 2: `inherited_state = none | internal |
// public`), ranked from the least to the most public: a run's state is the most public it received.
// The one definition of that rank: the replay's separation rules, ingested evaluations' units and
// pass^k's refusal rank by it, and SQL that needs it is rendered from it.

export const INHERITED_STATES = ["none", "internal", "public"] as const;
export type InheritedState = (typeof INHERITED_STATES)[number];

/** 0 for none, 1 for internal, 2 for public: the position in INHERITED_STATES. */
export const INHERITED_RANK = Object.fromEntries(INHERITED_STATES.map((state, rank) => [state, rank])) as Readonly<
  Record<InheritedState, number>
>;

/** The more public of two inherited states. */
export function morePublic(a: InheritedState, b: InheritedState): InheritedState {
  return INHERITED_RANK[b] > INHERITED_RANK[a] ? b : a;
}

/**
 * SQL for a run's inherited state from its links' `column`: the most public, ranked as INHERITED_RANK
 * ranks them (rendered from it). An aggregate: `SELECT run_id, ${mostPublicInheritedSql("inherited")} … GROUP BY run_id`.
 */
export function mostPublicInheritedSql(column: string): string {
  const byRank = [...INHERITED_STATES].reverse();
  const least = byRank.at(-1)!;
  const above = byRank.slice(0, -1);
  const ranked = above.map((state) => `WHEN '${state}' THEN ${INHERITED_RANK[state]}`).join(" ");
  const named = above.map((state) => `WHEN ${INHERITED_RANK[state]} THEN '${state}'`).join(" ");
  return `CASE max(CASE ${column} ${ranked} ELSE ${INHERITED_RANK[least]} END) ${named} ELSE '${least}' END`;
}
