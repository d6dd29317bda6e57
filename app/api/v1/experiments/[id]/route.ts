import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { experimentStatus } from "@/lib/experiments/progress";
import { experimentIdSchema, experimentLabelsPatchSchema } from "@/lib/experiments/experiment-schemas";
import { setExperimentLabels } from "@/lib/experiments/set-experiment-labels";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The experiment's name and notes, state and progress (done/total runs, overall and per condition). */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const status = await experimentStatus(getDb(), params.id);
  if (!status) throw notFound(`experiment ${params.id}`);
  return Response.json(status);
});

/** Renames or annotates an experiment: `{name?, notes?}`, null clears; answers `{id, name, notes}`. */
export const PATCH = apiRoute(
  { permission: "experiment:run", params: experimentIdSchema, body: experimentLabelsPatchSchema },
  async ({ params, body }) => {
    const labels = await setExperimentLabels(getDb(), params.id, body);
    if (!labels) throw notFound(`experiment ${params.id}`);
    return Response.json(labels);
  },
);
