import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { killSwitchSchema } from "@/lib/share/share-link-schemas";
import { setShareLinksDisabled, shareLinksDisabled } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ permission: "share:admin" }, async () => Response.json({ disabled: await shareLinksDisabled(getDb()) }));

/** The kill switch: `{disabled: true}` stops every share link on the instance at once. */
export const PUT = apiRoute({ permission: "share:admin", body: killSwitchSchema }, async ({ principal, body }) => {
  await setShareLinksDisabled(getDb(), principal, body.disabled);
  return Response.json({ disabled: body.disabled });
});
