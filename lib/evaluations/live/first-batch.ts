// A trace's first OTLP request is kept whole on its live run (first_events, first_spans: one JSON
// array each, as text), not a row per event and span: most traces arrive in one request and are
// scored in it, and ~23 rows a run were most of PostgreSQL's share of the receiver's time (docs/benchmarks.md,
// bench:otlp). When more events come to the run, the
// arrays move into live_run_events and live_run_spans first, so everything after works on rows as before.
import type { CopyTx } from "../../db/sql-transaction";

/**
 * Moves the run's first batch into the event and span tables (on a run the caller has locked); nothing
 * when there is none. One statement, as it runs on every events request: its parts all read the row
 * as it was before the UPDATE clears it.
 */
export async function moveFirstBatch(tx: CopyTx, liveRunId: string): Promise<void> {
  await tx.$executeRaw`
    WITH run AS (
      SELECT id, opened_at, first_events::jsonb AS events, first_spans::jsonb AS spans FROM live_runs
       WHERE id = ${liveRunId}::bigint AND (first_events IS NOT NULL OR first_spans IS NOT NULL)
    ), moved_events AS (
      -- In their arrival order (ids follow the array's), received when the run was opened by them.
      INSERT INTO live_run_events (live_run_id, event_id, type, at, effect_id, body, received_at)
      SELECT run.id, e->>'eventId', e->>'type', (e->>'at')::timestamptz, e->>'effectId', e, run.opened_at
        FROM run, jsonb_array_elements(run.events) WITH ORDINALITY AS x(e, n)
       ORDER BY n
    ), moved_spans AS (
      INSERT INTO live_run_spans (live_run_id, span_id, trace_id, parent_span_id, name, start_at, end_at, status_code, attributes)
      SELECT run.id, s.span_id, s.trace_id, s.parent_span_id, s.name, s.start_at, s.end_at, s.status_code, s.attributes
        FROM run, jsonb_populate_recordset(NULL::live_run_spans, run.spans) AS s
      ON CONFLICT DO NOTHING
    )
    UPDATE live_runs SET first_events = NULL, first_spans = NULL WHERE id IN (SELECT id FROM run)`;
}
