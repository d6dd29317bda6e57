import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { createQueuedExperiment } from "@/lib/experiments/create-experiment";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { replayConfigSchema } from "@/lib/replay/config";

export const dynamic = "force-dynamic";

/** Creates an experiment from its config (every field defaults to the paper's grid) and enqueues its units. */
export const POST = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "experiment:run");
  const config = parseInput(replayConfigSchema, await readJsonBody(request), "body");
  const id = await createQueuedExperiment(getDb(), config, principal.userId);
  return Response.json({ id }, { status: 201, headers: { location: `/api/v1/experiments/${id}` } });
});
