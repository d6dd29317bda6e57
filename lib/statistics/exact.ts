// Exact integer arithmetic for the statistics: binomial coefficients outgrow a double's 53-bit
// mantissa (C(60, 30) already does) and their ratios underflow or cancel when computed in floats.

/** C(n, k) exactly; 0 when k < 0 or k > n. */
export function binomial(n: number, k: number): bigint {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0) throw new RangeError(`binomial(${n}, ${k}): whole numbers with n ≥ 0`);
  if (k < 0 || k > n) return 0n;
  const smaller = Math.min(k, n - k);
  let result = 1n;
  // After step i the product is C(n − smaller + i, i): every division is exact.
  for (let i = 1; i <= smaller; i++) result = (result * BigInt(n - smaller + i)) / BigInt(i);
  return result;
}

const bitLength = (value: bigint): number => value.toString(2).length;

/**
 * numerator / denominator as the nearest double (to within one unit in the last place): the
 * quotient is taken with 64 significant bits in integers, and rounded once when converted.
 */
export function exactRatio(numerator: bigint, denominator: bigint): number {
  if (denominator <= 0n) throw new RangeError("exactRatio: the denominator must be positive");
  if (numerator < 0n) return -exactRatio(-numerator, denominator);
  if (numerator === 0n) return 0;
  const shift = 64 - (bitLength(numerator) - bitLength(denominator));
  const quotient = shift >= 0 ? (numerator << BigInt(shift)) / denominator : numerator / (denominator << BigInt(-shift));
  // Scaled in two halves so that neither power of two underflows or overflows on its own.
  const firstHalf = Math.trunc(shift / 2);
  return Number(quotient) * 2 ** -firstHalf * 2 ** -(shift - firstHalf);
}
