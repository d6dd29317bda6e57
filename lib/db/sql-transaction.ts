// A transaction on a node-postgres connection that answers Prisma's raw-query calls ($queryRaw,
// $executeRaw with tagged templates or Prisma.sql), for writers whose statements carry large
// parameters: Prisma's client engine spent far longer passing one 1,000-row parameter
// than node-postgres does (docs/evaluations.md, The fast path). Rows come back as node-postgres types them (int8 and numeric as
// strings): callers parse them with coercing schemas, as they do Prisma's BigInt and Decimal.
import type pg from "pg";
import { Prisma } from "../generated/prisma/client";
import { copyLines, copyRows } from "./pg-copy";
import { preparedStatementName } from "./prepared-statements";
import type { ColumnType } from "./unnest-rows";

/** Raw SQL: what a reader needs. Prisma's client and its transactions have it; so do sqlTransaction's and poolSql's. */
export interface SqlClient {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/** What the raw-SQL writers need of a transaction: Prisma's interactive transactions have it too. */
export type SqlTx = SqlClient;

/**
 * Raw SQL on `pool`, each statement on its own (autocommit) and prepared once per connection
 * (lib/db/prepared-statements.ts), rows as node-postgres types them (see above). For the pages'
 * reads: Prisma's client spends ~0.1 ms of CPU on each raw query it passes on.
 */
export function poolSql(pool: pg.Pool): SqlClient {
  return sqlOn(pool, (sql) => preparedStatementName(sql.text, sql.values.length));
}

/**
 * $queryRaw and $executeRaw on a pool (each statement on its own) or on one checked-out connection;
 * `nameOf` names the statements to prepare ("" or none: unnamed, planned every run).
 */
function sqlOn(queryable: pg.Pool | pg.PoolClient, nameOf: (sql: Prisma.Sql) => string = () => ""): SqlClient {
  const run = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]) => {
    const sql = statement(query, values);
    return queryable.query({ name: nameOf(sql), text: sql.text, values: sql.values as unknown[] });
  };
  return {
    async $queryRaw<R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      return (await run(query, values)).rows as R;
    },
    async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      return (await run(query, values)).rowCount ?? 0;
    },
  };
}

/** A transaction of sqlTransaction: raw queries, and new rows copied in (COPY … FROM STDIN). */
export interface CopyTx extends SqlTx {
  copyRows(table: string, rows: readonly Record<string, unknown>[], columns: Readonly<Record<string, ColumnType>>): Promise<void>;
  /** Lines already in COPY's text format (pg-copy.ts copyFormat), each ending in a newline. */
  copyLines(table: string, names: readonly string[], text: string): Promise<void>;
  /**
   * $queryRaw as the named prepared statement `name` (one text per name): PostgreSQL keeps its plan on the
   * connection, for a statement run once a batch whose planning costs more than its run (each connection
   * is the pool's own, never shared through a transaction-pooling proxy).
   */
  $queryPrepared<T = unknown>(name: string, query: Prisma.Sql): Promise<T>;
}

const statement = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql =>
  query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);

/** Runs `work` in one transaction on a connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function sqlTransaction<T>(pool: pg.Pool, work: (tx: CopyTx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client has no listener of the pool's: a connection lost between statements (a
  // restart, pg_terminate_backend) would be an unheard 'error' event, which ends the process. Heard,
  // it fails the transaction's next statement, and the client is discarded on release.
  const onLost = (error: Error) => (broken ??= error);
  client.on("error", onLost);
  const tx: CopyTx = {
    ...sqlOn(client),
    copyRows: (table, rows, columns) => copyRows(client, table, rows, columns),
    copyLines: (table, names, text) => copyLines(client, table, names, text),
    async $queryPrepared<R>(name: string, query: Prisma.Sql) {
      return (await client.query({ name, text: query.text, values: query.values as unknown[] })).rows as R;
    },
  };
  try {
    await client.query("BEGIN");
    const result = await work(tx);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that cannot roll back is discarded, never handed out mid-transaction.
    await client.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
    throw error;
  } finally {
    // A lost connection may still emit its second error (pg reports the shutdown, then the closed socket): its listener stays.
    if (!broken) client.removeListener("error", onLost);
    client.release(broken);
  }
}
