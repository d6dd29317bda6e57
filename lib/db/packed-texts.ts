// Long texts (JSON documents kept whole) as one bytea parameter, which node-postgres sends in binary,
// and the byte offsets that cut it: inside a JSON or array parameter every quote of them was escaped
// on the way and unescaped again by PostgreSQL (the OTLP receiver's first batches: most of storing a
// run's events and spans).
import { Prisma } from "../generated/prisma/client";

/**
 * `WITH packed AS (${packTexts(texts)})`: one row of `bytes` (every text in UTF-8, end to end) and
 * `starts` (text k's first byte is starts[k], 1-based; one more entry ends the last). Read text k with
 * `packedText(k)`.
 */
export function packTexts(texts: readonly string[]): Prisma.Sql {
  const starts = [0];
  for (const text of texts) starts.push(starts.at(-1)! + Buffer.byteLength(text, "utf8"));
  // Written into one buffer: a buffer per text, then their concatenation, was a copy more of every byte.
  const bytes = Buffer.allocUnsafe(starts.at(-1)!);
  texts.forEach((text, i) => bytes.write(text, starts[i]!, "utf8"));
  return Prisma.sql`SELECT ${bytes}::bytea AS bytes, ${starts}::int[] AS starts`;
}

/** Text `k` (an SQL expression, 1-based) of the CTE `packed` (packTexts). */
export const packedText = (k: string) =>
  Prisma.raw(
    `convert_from(substring(packed.bytes FROM packed.starts[${k}] + 1 FOR packed.starts[${k} + 1] - packed.starts[${k}]), 'UTF8')`,
  );
