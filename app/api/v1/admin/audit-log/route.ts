import { listAuditLog, auditLogQuerySchema } from "@/lib/audit-log/audit-log";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** What was done that cannot be undone, newest first: `{entries, nextCursor}`. Admins only. */
export const GET = apiRoute({ permission: "users:admin", query: auditLogQuerySchema }, async ({ query }) =>
  Response.json(await listAuditLog(getDb(), query)),
);
