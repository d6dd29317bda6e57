import { z } from "zod";

// Raw SQL results checked against the columns each query promises, not cast: a query or column type
// that changes under its caller fails here, naming the row and column, instead of turning into a
// wrong figure further on. (Prisma returns count(*) as a bigint; node-postgres returns it as text.)

// One array schema per row schema, made on first use: building a zod schema costs more than parsing a few rows with it.
const arrays = new WeakMap<z.ZodType, z.ZodArray<z.ZodType>>();

/** Every row of a raw query's result, each parsed by `row` (a schema made once, at module level, not per call). */
export function rowsOf<Row extends z.ZodType>(row: Row, rows: unknown): z.output<Row>[] {
  let array = arrays.get(row);
  if (!array) arrays.set(row, (array = z.array(row)));
  return array.parse(rows) as z.output<Row>[];
}

/** The one row of a query that always returns exactly one (an aggregate, a RETURNING of one key). */
export function onlyRowOf<Row extends z.ZodType>(row: Row, rows: unknown): z.output<Row> {
  const [only, ...more] = rowsOf(row, rows);
  if (only === undefined || more.length > 0) throw new Error(`expected exactly one row, got ${more.length + (only === undefined ? 0 : 1)}`);
  return only;
}

const existsRow = z.object({ exists: z.boolean() });

/** The answer of a `SELECT EXISTS (…) AS exists`: the pages' existence checks, asked on every request. */
export const existsAnswer = (rows: unknown): boolean => onlyRowOf(existsRow, rows).exists;

/** A count or sum as a number, whichever way the driver returns it (int, bigint or numeric text). */
export const countColumn = z.coerce.number().int().min(0);
