import { listAuditLog, auditLogQuerySchema } from "@/lib/audit-log/audit-log";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/web/api-route";

export const dynamic = "force-dynamic";

/** What was done that cannot be undone, newest first: `{entries, nextCursor}`. Admins only. */
export const GET = apiRoute({ permission: "users:admin", query: auditLogQuerySchema }, async ({ query }) =>
  Response.json(await listAuditLog(getDb(), query)),
);
