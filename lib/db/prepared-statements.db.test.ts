import { afterAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client";
import { useTestDatabase } from "../testing/use-test-database";
import { createPrisma, poolOf, type Db } from "./prisma";
import { MAX_PREPARED_PARAMETERS, preparedStatementName } from "./prepared-statements";
import { poolSql } from "./sql-transaction";

// The web process's client (getDb) and its raw reads (getSql) prepare each statement once per
// connection; other clients (workers, writers) do not. One connection per pool, so that the
// statements prepared are all on the connection that lists them.
let url: string;
const opened: Db[] = [];
useTestDatabase((database) => (url = database.url));
afterAll(() => Promise.all(opened.map((db) => db.$disconnect())));

const client = (preparedStatements: boolean) => {
  const db = createPrisma(url, 1, { preparedStatements });
  opened.push(db);
  return db;
};
const preparedOn = async (db: Db) =>
  (await db.$queryRaw<Array<{ name: string; statement: string }>>`SELECT name, statement FROM pg_prepared_statements`).filter((s) =>
    s.name.startsWith("bl_"),
  );

describe("prepared statements", () => {
  it("the web's Prisma client prepares its statements under their text's name, and answers as an unprepared one", async () => {
    const web = client(true);
    const other = client(false);
    const query = (db: Db, n: number) => db.$queryRaw<Array<{ doubled: number }>>`SELECT ${n}::int * 2 AS doubled`;
    for (let n = 1; n <= 7; n++) expect(await query(web, n)).toEqual(await query(other, n));
    expect(await web.user.count()).toBe(await other.user.count());
    const prepared = await preparedOn(web);
    expect(prepared.map((s) => s.statement)).toContain("SELECT $1::int * 2 AS doubled");
    const doubled = prepared.find((s) => s.statement === "SELECT $1::int * 2 AS doubled")!;
    expect(doubled.name).toBe(preparedStatementName("SELECT $1::int * 2 AS doubled", 1));
    expect(prepared.some((s) => /FROM "public"\."users"/.test(s.statement))).toBe(true);
    expect(await preparedOn(other)).toEqual([]);
  });

  it("poolSql prepares its statements; one of more than MAX_PREPARED_PARAMETERS parameters runs unnamed", async () => {
    const db = client(false);
    const sql = poolSql(poolOf(db));
    expect(await sql.$queryRaw`SELECT ${"a"}::text || 'b' AS joined`).toEqual([{ joined: "ab" }]);
    const many = Array.from({ length: MAX_PREPARED_PARAMETERS + 1 }, (_, i) => i);
    const summed = await sql.$queryRaw<Array<{ total: number }>>`SELECT (${Prisma.join(
      many.map((n) => Prisma.sql`${n}::int`),
      " + ",
    )})::int AS total`;
    expect(summed).toEqual([{ total: (MAX_PREPARED_PARAMETERS * (MAX_PREPARED_PARAMETERS + 1)) / 2 }]);
    const statements = (
      await sql.$queryRaw<Array<{ statement: string }>>`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'bl\\_%'`
    ).map((s) => s.statement);
    expect(statements).toContain(`SELECT $1::text || 'b' AS joined`);
    expect(statements.some((s) => s.includes(`$${MAX_PREPARED_PARAMETERS + 1}`))).toBe(false);
  });
});
