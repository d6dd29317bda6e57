// A run's transcript a page at a time (issue 26): the run page and GET …/runs/{externalId} read the
// messages by position, so that a long conversation is never loaded whole.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { onlyRowOf, rowsOf } from "../db/rows";
import { optional, wholeNumber } from "../http/pagination";
import { MESSAGE_ROLES, type MessageRecord } from "./schemas";

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

export interface RunMessagesPage {
  messages: (MessageRecord & { position: number })[];
  /** Messages the run holds in all. */
  messageCount: number;
  /** Pass as messagesFrom for the next page; null on the last. */
  nextMessagesFrom: number | null;
}

const messageRow = z.object({
  position: z.number().int(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  tool_calls: z.array(z.object({ id: z.string(), tool: z.string(), arguments: z.unknown().optional() })).nullable(),
  tool_call_id: z.string().nullable(),
});

/** Messages `from` on (at most `limit`) of the run with this stored id, and how many it holds. */
export async function runMessages(db: Db, runId: string, from: number, limit: number): Promise<RunMessagesPage> {
  const [rows, { n }] = await Promise.all([
    db.$queryRaw`
      SELECT position, role, content, tool_calls, tool_call_id FROM evaluation_run_messages
       WHERE run_id = ${runId}::bigint AND position >= ${from} ORDER BY position LIMIT ${limit}`.then((r) => rowsOf(messageRow, r)),
    db.$queryRaw`SELECT count(*)::int AS n FROM evaluation_run_messages WHERE run_id = ${runId}::bigint`.then((r) =>
      onlyRowOf(z.object({ n: z.number() }), r),
    ),
  ]);
  const messages = rows.map((r) => ({
    position: r.position,
    role: r.role,
    content: r.content,
    ...(r.tool_calls && { toolCalls: r.tool_calls }),
    ...(r.tool_call_id !== null && { toolCallId: r.tool_call_id }),
  }));
  const last = messages.at(-1);
  return { messages, messageCount: n, nextMessagesFrom: last && last.position + 1 < n ? last.position + 1 : null };
}
