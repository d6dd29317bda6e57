// Rates over connected runs (the paper, §6.2: connected runs are one observation): the rows-based
// figure beside a unit-based one. The unit-based interval is Wilson's on Kish's effective sample
// size (Kish 1965, Survey Sampling, §8.2: n_eff = N / deff), with the design effect estimated as
// the ratio of the cluster-robust variance of the rate to the simple binomial variance:
//
//   p = n/N,  V_cluster = Σ_j (y_j − p·m_j)² / N²,  V_binomial = p(1 − p)/N,
//   deff = V_cluster / V_binomial = (N²·Σy_j² − 2nN·Σy_j·m_j + n²·Σm_j²) / (N·n·(N − n))
//
// for analysis units j with m_j rows of which y_j succeeded. The last form is a ratio of integers,
// computed exactly. Two choices (docs/statistics.md): deff is floored at N/G, the mean unit size,
// because connected runs are one observation: the effective size N/deff is then at most G, the
// number of units (the ratio alone falls below N/G when a unit's rows disagree, and a floor at 1
// let 9 rows in 6 units claim 7.71), and, as N/G ≥ 1, a unit-based interval is never narrower than
// the rows-based one. When every row has the same outcome (p = 0 or 1, both variances 0) it is N/G
// too: the effective size is the number of units.
import { exactRatio } from "./exact";
import { wilsonForProportion, wilsonInterval, type Interval } from "./wilson";

/** A row with an outcome, and the analysis unit (cluster) it belongs to. */
export interface UnitRow {
  unitId: string;
  success: boolean;
}

/** The sufficient statistics of the design effect: what SQL can aggregate without returning units. */
export interface ClusterSums {
  /** N: rows with an outcome. */
  rows: number;
  /** n: rows that succeeded. */
  successes: number;
  /** G: analysis units with at least one such row. */
  units: number;
  /** Σ y_j², y_j the successes of unit j. */
  sumSquaredSuccesses: number;
  /** Σ y_j·m_j, m_j the rows of unit j. */
  sumSuccessesTimesRows: number;
  /** Σ m_j². */
  sumSquaredRows: number;
}

const NO_ROWS: ClusterSums = { rows: 0, successes: 0, units: 0, sumSquaredSuccesses: 0, sumSuccessesTimesRows: 0, sumSquaredRows: 0 };

export function clusterSums(rows: readonly UnitRow[]): ClusterSums {
  const units = new Map<string, { rows: number; successes: number }>();
  for (const row of rows) {
    const unit = units.get(row.unitId) ?? { rows: 0, successes: 0 };
    unit.rows += 1;
    if (row.success) unit.successes += 1;
    units.set(row.unitId, unit);
  }
  return addClusterSums(
    ...[...units.values()].map((u) => ({
      rows: u.rows,
      successes: u.successes,
      units: 1,
      sumSquaredSuccesses: u.successes ** 2,
      sumSuccessesTimesRows: u.successes * u.rows,
      sumSquaredRows: u.rows ** 2,
    })),
  );
}

/** The sums of disjoint sets of units (pooling conditions, for instance). */
export function addClusterSums(...parts: readonly ClusterSums[]): ClusterSums {
  return parts.reduce(
    (total, part) => ({
      rows: total.rows + part.rows,
      successes: total.successes + part.successes,
      units: total.units + part.units,
      sumSquaredSuccesses: total.sumSquaredSuccesses + part.sumSquaredSuccesses,
      sumSuccessesTimesRows: total.sumSuccessesTimesRows + part.sumSuccessesTimesRows,
      sumSquaredRows: total.sumSquaredRows + part.sumSquaredRows,
    }),
    NO_ROWS,
  );
}

/** The design effect as the header defines it (≥ N/G, so that N/deff ≤ G), or null when there are no rows. */
export function designEffect(sums: ClusterSums): number | null {
  const { rows: N, successes: n, units: G } = sums;
  if (N === 0) return null;
  const meanUnitSize = N / G;
  if (n === 0 || n === N) return meanUnitSize;
  const bigN = BigInt(N);
  const bign = BigInt(n);
  const numerator =
    bigN * bigN * BigInt(sums.sumSquaredSuccesses) -
    2n * bign * bigN * BigInt(sums.sumSuccessesTimesRows) +
    bign * bign * BigInt(sums.sumSquaredRows);
  return Math.max(meanUnitSize, exactRatio(numerator, bigN * bign * (bigN - bign)));
}

export interface UnitLevelFigures {
  /** Every row counted as a separate trial. */
  rows: { n: number; N: number; wilson95: Interval | null };
  /** The same rate with the units' dependence: N / deff effective trials. */
  units: { analysisUnits: number; designEffect: number | null; effectiveN: number; wilson95: Interval | null };
}

export function unitLevelFigures(sums: ClusterSums): UnitLevelFigures {
  const deff = designEffect(sums);
  // N / deff ≤ G by the floor; min() keeps a rounding error in the division from passing G.
  const effectiveN = deff === null ? 0 : Math.min(sums.units, sums.rows / deff);
  return {
    rows: { n: sums.successes, N: sums.rows, wilson95: wilsonInterval(sums.successes, sums.rows) },
    units: {
      analysisUnits: sums.units,
      designEffect: deff,
      effectiveN,
      wilson95: sums.rows === 0 ? null : wilsonForProportion(sums.successes / sums.rows, effectiveN),
    },
  };
}
