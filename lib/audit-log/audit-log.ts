// What was done that cannot be undone, for admins to read: who, when, what, and what went with it.
// Written in the transaction of the act itself, so a line exists exactly when the act happened.
import { z } from "zod";
import type { Db } from "../db/prisma";
import type { SqlTx } from "../db/sql-transaction";
import { rowsOf } from "../db/rows";
import { cursorOf, encodeCursor, optional, pageSize } from "../http/pagination";

export const AUDIT_ACTIONS = ["evaluation.delete"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditActor {
  userId: string;
  email: string;
}

export interface AuditLogEntry {
  id: string;
  at: string;
  actorEmail: string;
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  details: Record<string, unknown>;
}

export async function recordAudit(
  tx: Pick<SqlTx, "$executeRaw">,
  actor: AuditActor,
  entry: { action: AuditAction; resourceType: string; resourceId: string; details: Record<string, unknown> },
): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO audit_log (actor_id, actor_email, action, resource_type, resource_id, details)
    VALUES (${actor.userId}, ${actor.email}, ${entry.action}, ${entry.resourceType}, ${entry.resourceId}, ${JSON.stringify(entry.details)}::jsonb)`;
}

export const auditLogQuerySchema = z.strictObject({
  limit: pageSize,
  cursor: optional(cursorOf(z.tuple([z.string().regex(/^[0-9]{1,19}$/)]))),
});
export type AuditLogQuery = z.infer<typeof auditLogQuerySchema>;

const entryRow = z.object({
  id: z.string(),
  at: z.date(),
  actor_email: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  resource_type: z.string(),
  resource_id: z.string(),
  details: z.record(z.string(), z.unknown()),
});

/** The newest entries first, a page at a time: `{entries, nextCursor}`. */
export async function listAuditLog(db: Db, query: AuditLogQuery): Promise<{ entries: AuditLogEntry[]; nextCursor: string | null }> {
  const after = query.cursor?.[0] ?? null;
  const rows = rowsOf(
    entryRow,
    await db.$queryRaw`
      SELECT id::text, at, actor_email, action, resource_type, resource_id, details FROM audit_log
       WHERE ${after}::bigint IS NULL OR id < ${after}::bigint
       ORDER BY id DESC LIMIT ${query.limit + 1}`,
  );
  const entries = rows.slice(0, query.limit).map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    actorEmail: r.actor_email,
    action: r.action,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    details: r.details,
  }));
  return { entries, nextCursor: rows.length > query.limit ? encodeCursor([entries.at(-1)!.id]) : null };
}
