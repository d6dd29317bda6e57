// Records a request's events on a live run: admitted by timeline.ts's rules and stored; a run closed
// already has its record remade with them (later evidence).
import { z } from "zod";
import { canonicalJson } from "../../content-hash";
import type { Db } from "../../db/prisma";
import { countColumn, rowsOf } from "../../db/rows";
import { unstorableTextReason } from "../../http/storable";
import type { CopyTx } from "../../db/sql-transaction";
import { type StatusAtScoring, STATUSES_AT_SCORING } from "../vocabulary";
import { moveFirstBatch } from "./first-batch";
import type { LiveEventsAnswer } from "./live-run-schemas";
import { inTransaction, lockOpenedRun } from "./run-lock";
import { storeRecord, type LiveRunRow } from "./run-record";
import { admitEvents, type AdmissionOptions, type HeldStatus, type StatusPoint } from "./timeline";

/**
 * Admits a request's events (timeline.ts admitEvents) and stores the accepted ones; a run closed
 * already has its record remade with them (later evidence). 404 for an unknown evaluation or run.
 */
export async function recordLiveEvents(
  db: Db,
  evaluationId: string,
  externalId: string,
  items: readonly unknown[],
): Promise<LiveEventsAnswer> {
  return inTransaction(db, async (tx) => recordEventsIn(tx, evaluationId, await lockOpenedRun(tx, evaluationId, externalId), items));
}

/**
 * recordLiveEvents inside the caller's transaction, on a run it has locked (the OTLP receiver's runs sent spans before,
 * which holds statuses of effects not requested yet: admitEvents' options). Held statuses that an effect's request
 * admitted now shows invalid are deleted and answered in `dropped`, whoever sent the request.
 */
export async function recordEventsIn(
  tx: CopyTx,
  evaluationId: string,
  row: LiveRunRow,
  items: readonly unknown[],
  options: AdmissionOptions = {},
): Promise<LiveEventsAnswer> {
  {
    await moveFirstBatch(tx, row.id);
    const ids = items.flatMap((item) => {
      const id = (item as { eventId?: unknown } | null)?.eventId;
      // Only ids PostgreSQL can take are looked up: an unstorable one is refused at admission, naming its field.
      return typeof id === "string" && unstorableTextReason(id) === null ? [id] : [];
    });
    const [effectRows, countRows, reused] = [
      rowsOf(
        z.object({
          type: z.enum(["effect_requested", "effect_status"]),
          event_id: z.string(),
          effect_id: z.string(),
          at: z.date(),
          status: z.string().nullable(),
          arrival: z.number(),
        }),
        await tx.$queryRaw`
          SELECT type, event_id, effect_id, at, body->>'status' AS status, (row_number() OVER (ORDER BY id))::int AS arrival FROM live_run_events
           WHERE live_run_id = ${row.id}::bigint AND type IN ('effect_requested', 'effect_status') ORDER BY at, id`,
      ),
      rowsOf(
        z.object({ type: z.string(), n: countColumn }),
        await tx.$queryRaw`SELECT type, count(*) AS n FROM live_run_events WHERE live_run_id = ${row.id}::bigint GROUP BY type`,
      ),
      rowsOf(
        z.object({ event_id: z.string(), body: z.unknown() }),
        await tx.$queryRaw`SELECT event_id, body FROM live_run_events WHERE live_run_id = ${row.id}::bigint AND event_id = ANY(${ids}::text[])`,
      ),
    ];
    const effects = new Map<string, number>();
    const statuses = new Map<string, StatusPoint[]>();
    const held = new Map<string, (HeldStatus & { arrival: number })[]>();
    for (const r of effectRows) if (r.type === "effect_requested") effects.set(r.effect_id, r.at.getTime());
    for (const r of effectRows) {
      if (r.type === "effect_requested") continue;
      const point = { status: statusOf(r.status), atMs: r.at.getTime() };
      // Pushed, not copied: a run's statuses are read on every request of its events.
      if (effects.has(r.effect_id)) {
        const points = statuses.get(r.effect_id) ?? [];
        points.push(point);
        statuses.set(r.effect_id, points);
      } else {
        const waiting = held.get(r.effect_id) ?? [];
        waiting.push({ ...point, eventId: r.event_id, arrival: r.arrival });
        held.set(r.effect_id, waiting);
      }
    }
    for (const waiting of held.values()) waiting.sort((a, b) => a.arrival - b.arrival);
    const count = (type: string) => countRows.find((c) => c.type === type)?.n ?? 0;
    const admission = admitEvents(
      {
        startedAtMs: row.started_at.getTime(),
        effects,
        statuses,
        counts: {
          effect_requested: count("effect_requested"),
          touch: count("touch"),
          reset: count("reset"),
          model_call: count("model_call"),
        },
        storedById: new Map(reused.map((r) => [r.event_id, canonicalJson(r.body)])),
        held,
      },
      items,
      options,
    );
    const accepted = admission.accepted;
    if (admission.dropped.length > 0)
      await tx.$executeRaw`
        DELETE FROM live_run_events WHERE live_run_id = ${row.id}::bigint AND event_id = ANY(${admission.dropped.map((d) => d.eventId)}::text[])`;
    if (accepted.length > 0) {
      await tx.$executeRaw`
        INSERT INTO live_run_events (live_run_id, event_id, type, at, effect_id, body)
        SELECT ${row.id}::bigint, x.event_id, x.type, x.at, x.effect_id, x.body
          FROM unnest(${accepted.map((a) => a.event.eventId)}::text[], ${accepted.map((a) => a.event.type)}::text[],
                      ${accepted.map((a) => a.event.at)}::timestamptz[], ${accepted.map((a) => ("effectId" in a.event ? a.event.effectId : null))}::text[],
                      ${accepted.map((a) => canonicalJson(a.event))}::jsonb[]) AS x(event_id, type, at, effect_id, body)`;
      await tx.$executeRaw`
        UPDATE live_runs SET clock_skew_events = clock_skew_events + ${admission.flagged.length}::int, last_event_at = now() WHERE id = ${row.id}::bigint`;
      if (row.state !== "open") await storeRecord(tx, evaluationId, row);
    }
    return {
      accepted: accepted.length + admission.duplicates,
      errors: admission.errors,
      duplicates: admission.duplicates,
      flagged: admission.flagged,
      ...(admission.dropped.length > 0 && { dropped: admission.dropped }),
      state: row.state,
    };
  }
}

const statusOf = (status: string | null): StatusAtScoring => z.enum(STATUSES_AT_SCORING).parse(status);
