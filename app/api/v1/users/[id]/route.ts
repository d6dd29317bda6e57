import { setAccountRole } from "@/lib/auth/accounts";
import { requireApiPermission } from "@/lib/auth/guard";
import { setRoleSchema, pathIdSchema } from "@/lib/auth/schemas";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Sets a user's role (their sessions end, so the new role applies at once). */
export const PATCH = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "users:admin");
  const { id } = parseInput(pathIdSchema, await context.params, "path");
  const { role } = parseInput(setRoleSchema, await readJsonBody(request), "body");
  return Response.json(await setAccountRole(getDb(), id, role));
});
