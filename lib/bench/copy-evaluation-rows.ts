// bench:ingest's second path: an evaluation's stored rows copied into another with PostgreSQL's own
// COPY … FROM STDIN, a chunk of runs at a time on one connection. The chunks are formatted before
// their COPY; only the COPY statements are timed.
import type pg from "pg";
import { copyFrom, copyText } from "../db/pg-copy";

/** The tables a run fills. */
const COPIED_TABLES = [
  "evaluation_runs",
  "evaluation_effects",
  "evaluation_effect_resolutions",
  "evaluation_touches",
  "evaluation_resets",
  "evaluation_reset_canaries",
  "evaluation_surface_links",
  "evaluation_units",
  "evaluation_surfaces",
  "evaluation_run_traces",
  "evaluation_run_messages",
  "evaluation_run_model_calls",
] as const;
/** Tables keyed by run alone (no evaluation column): their rows are found through their runs. */
const RUN_ONLY_TABLES = new Set<string>(["evaluation_run_messages", "evaluation_run_model_calls"]);
/** Columns holding a run id: shifted with the runs. */
const RUN_ID_COLUMNS = new Set(["run_id", "analysis_unit", "link_group", "unit", "first_writer", "last_reader"]);
/** The run id a table's rows are chunked by (a surface's stats by its first writer, or its last reader). */
const CHUNK_COLUMN: Record<(typeof COPIED_TABLES)[number], string> = {
  evaluation_runs: "id",
  evaluation_effects: "run_id",
  evaluation_effect_resolutions: "run_id",
  evaluation_touches: "run_id",
  evaluation_resets: "run_id",
  evaluation_reset_canaries: "run_id",
  evaluation_surface_links: "run_id",
  evaluation_units: "unit",
  evaluation_surfaces: "coalesce(first_writer, last_reader)",
  evaluation_run_traces: "run_id",
  evaluation_run_messages: "run_id",
  evaluation_run_model_calls: "run_id",
};

/** Each copied table's columns, in order. */
async function copiedColumns(client: pg.Client): Promise<Map<string, string[]>> {
  const columns = new Map<string, string[]>();
  for (const table of COPIED_TABLES) {
    const { rows } = await client.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
      [table],
    );
    // Serial ids of the child tables are left to their sequences; a run's id is kept (shifted) for its children.
    columns.set(
      table,
      rows.map((r) => r.column_name).filter((c) => c !== "id" || table === "evaluation_runs"),
    );
  }
  return columns;
}

/**
 * Every row of evaluation `from` in the tables a run fills, copied into evaluation `to` with run ids
 * shifted past `from`'s, `chunkRuns` runs a chunk; answers the COPY statements' summed time in ms.
 */
export async function copyEvaluationRows(pgClient: pg.Client, from: string, to: string, chunkRuns: number): Promise<number> {
  const columns = await copiedColumns(pgClient);
  const { rows: bounds } = await pgClient.query<{ lo: string; hi: string }>(
    "SELECT min(id)::text AS lo, max(id)::text AS hi FROM evaluation_runs WHERE evaluation_id = $1",
    [from],
  );
  const offset = BigInt(bounds[0]!.hi) - BigInt(bounds[0]!.lo) + 1n;
  await pgClient.query(`SELECT setval(pg_get_serial_sequence('evaluation_runs', 'id'), $1::bigint)`, [
    (BigInt(bounds[0]!.hi) + offset).toString(),
  ]);
  let copyMs = 0;
  for (let lo = BigInt(bounds[0]!.lo); lo <= BigInt(bounds[0]!.hi); lo += BigInt(chunkRuns)) {
    const hi = lo + BigInt(chunkRuns) - 1n;
    for (const table of COPIED_TABLES) {
      const names = columns.get(table)!;
      const runColumn = CHUNK_COLUMN[table];
      // $1 the evaluation copied, $2..$4 the chunk's first run, the shift and its last run, $5 (only where used) the copy's evaluation.
      const select = names
        .map((c) =>
          c === "evaluation_id"
            ? "$5::text"
            : RUN_ID_COLUMNS.has(c) || (table === "evaluation_runs" && c === "id")
              ? `(${c} + $3)::text`
              : `${c}::text`,
        )
        .join(", ");
      const runOnly = RUN_ONLY_TABLES.has(table);
      const ofFrom = runOnly
        ? `EXISTS (SELECT 1 FROM evaluation_runs r WHERE r.id = ${table}.run_id AND r.evaluation_id = $1)`
        : "evaluation_id = $1";
      const { rows } = await pgClient.query<string[]>({
        text: `SELECT ${select} FROM ${table} WHERE ${ofFrom} AND ${runColumn} BETWEEN $2 AND $4`,
        values: [from, lo.toString(), offset.toString(), hi.toString(), ...(runOnly ? [] : [to])],
        rowMode: "array",
      });
      if (!rows.length) continue;
      const text = Buffer.from(`${rows.map((row) => row.map(copyText).join("\t")).join("\n")}\n`);
      const copyStarted = performance.now();
      await copyFrom(pgClient, `COPY ${table} (${names.join(", ")}) FROM STDIN`, [text]);
      copyMs += performance.now() - copyStarted;
    }
  }
  return copyMs;
}
