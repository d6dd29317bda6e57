import { z } from "zod";
import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { setShareLinksDisabled, shareLinksDisabled } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

const killSwitchSchema = z.strictObject({ disabled: z.boolean("disabled must be true or false") });

export const GET = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "share:admin");
  return Response.json({ disabled: await shareLinksDisabled(getDb()) }, { headers: { "cache-control": "no-store" } });
});

/** The kill switch: `{disabled: true}` stops every share link on the instance at once. */
export const PUT = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "share:admin");
  const { disabled } = parseInput(killSwitchSchema, await readJsonBody(request), "body");
  await setShareLinksDisabled(getDb(), principal, disabled);
  return Response.json({ disabled });
});
