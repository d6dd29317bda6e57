// A run's transcript a page at a time (docs/evaluations.md, Transcripts): the run page and GET …/runs/{externalId} read the
// messages by position, so that a long conversation is never loaded whole.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { onlyRowOf, rowsOf } from "../../db/rows";
import { optional, wholeNumber } from "../../http/pagination";
import { MESSAGES_PER_CHUNK } from "../ingest/rows";
import { messageSchema, type MessageRecord } from "../run-record-schema";

export const MESSAGES_PAGE = 200;
export const MAX_MESSAGES_PAGE = 500;

/** The query of GET …/runs/{externalId}: which messages of the transcript (from a position, so many). */
export const runMessagesQuerySchema = z.strictObject({
  messagesFrom: optional(wholeNumber("messagesFrom")).transform((from) => from ?? 0),
  messagesLimit: optional(
    wholeNumber("messagesLimit").pipe(
      z.number().min(1, "messagesLimit must be at least 1").max(MAX_MESSAGES_PAGE, `messagesLimit must be at most ${MAX_MESSAGES_PAGE}`),
    ),
  ).transform((limit) => limit ?? MESSAGES_PAGE),
});
export type RunMessagesQuery = z.infer<typeof runMessagesQuerySchema>;

/**
 * A run page's own query: the transcript page it opens at (`messages`, a message position) and the text the runs list
 * was searched for (`q`: marked in the transcript). Read leniently: a link's bad or repeated value opens the first page
 * and marks nothing.
 */
export function runPageView(search: Record<string, string | string[] | undefined>): { messagesFrom: number; searched: string } {
  return {
    messagesFrom: Number(/^\d{1,9}$/.exec(String(search.messages ?? ""))?.[0] ?? 0),
    searched: typeof search.q === "string" ? search.q.slice(0, 200) : "",
  };
}

export interface RunMessagesPage {
  messages: (MessageRecord & { position: number })[];
  /** Messages the run holds in all. */
  messageCount: number;
  /** Pass as messagesFrom for the next page; null on the last. */
  nextMessagesFrom: number | null;
}

const chunkRow = z.object({ first_position: z.number().int(), messages: z.array(messageSchema) });

/** Messages `from` on (at most `limit`) of the run with this stored id, and how many it holds: only the chunks of the page are read. */
export async function runMessages(db: SqlClient, runId: string, from: number, limit: number): Promise<RunMessagesPage> {
  const [chunks, { n }] = await Promise.all([
    db.$queryRaw`
      SELECT first_position, messages FROM evaluation_run_messages
       WHERE run_id = ${runId}::bigint AND chunk BETWEEN ${Math.floor(from / MESSAGES_PER_CHUNK)} AND ${Math.floor((from + limit - 1) / MESSAGES_PER_CHUNK)}
       ORDER BY chunk`.then((r) => rowsOf(chunkRow, r)),
    // The chunks' counts alone: no message is read for the total.
    db.$queryRaw`SELECT coalesce(sum(count), 0)::int AS n FROM evaluation_run_messages WHERE run_id = ${runId}::bigint`.then((r) =>
      onlyRowOf(z.object({ n: z.number() }), r),
    ),
  ]);
  const messages = chunks
    .flatMap((chunk) => chunk.messages.map((message, i) => ({ position: chunk.first_position + i, ...message })))
    .filter((m) => m.position >= from && m.position < from + limit);
  const last = messages.at(-1);
  return { messages, messageCount: n, nextMessagesFrom: last && last.position + 1 < n ? last.position + 1 : null };
}
