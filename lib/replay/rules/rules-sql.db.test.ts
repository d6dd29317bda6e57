import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { useTestDatabase } from "../../testing/use-test-database";
import { countedInDenominator, countedSql, RUN_CLASSIFICATIONS } from "./classification";
import { disagrees, disagreesSql, type Label, type TerminalLabel } from "./labels";

// The SQL twins of the paper's rules, evaluated by PostgreSQL on every input and compared with the
// pure function each one renders or mirrors: a query that counts in the database counts the same runs.
// (The inherited-state aggregate is checked in lib/evaluations/audit/links.db.test.ts.)
let db: Db;
useTestDatabase((database) => (db = database.db));

const text = (value: string | null) => (value === null ? "NULL::text" : `'${value}'::text`);

describe("the rules' SQL agrees with the pure functions", () => {
  it("disagreesSql is disagrees, null labels included", async () => {
    const endpoints: (Label | null)[] = ["success", "failure", null];
    const terminals: (TerminalLabel | null)[] = ["success", "failure", "unresolved", null];
    const pairs = endpoints.flatMap((endpoint) => terminals.map((terminal) => ({ endpoint, terminal })));
    const rows = await db.$queryRawUnsafe<{ i: number; d: boolean }[]>(
      `SELECT i, ${disagreesSql("e", "t")} AS d FROM (VALUES ${pairs.map((p, i) => `(${i}, ${text(p.endpoint)}, ${text(p.terminal)})`).join(", ")}) v(i, e, t) ORDER BY i`,
    );
    expect(rows.map((row) => row.d)).toEqual(pairs.map((p) => disagrees(p.endpoint, p.terminal)));
    expect(rows.filter((row) => row.d)).toHaveLength(4);
  });

  it("countedSql counts the classifications countedInDenominator counts", async () => {
    const rows = await db.$queryRawUnsafe<{ c: string; counted: boolean }[]>(
      `SELECT c, ${countedSql("c")} AS counted FROM unnest($1::text[]) WITH ORDINALITY u(c, n) ORDER BY n`,
      [...RUN_CLASSIFICATIONS],
    );
    expect(rows.map((row) => row.counted)).toEqual(RUN_CLASSIFICATIONS.map(countedInDenominator));
    expect(rows.find((row) => !row.counted)?.c).toBe("environment_failure");
  });
});
