import { getDb } from "@/lib/db/web-process-db";
import { getServiceClient } from "@/lib/delayed-write/web-client";
import { conflict, DomainError, notFound } from "@/lib/errors";
import { cancelExperiment } from "@/lib/experiments/cancel-experiment";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Cancels a queued or running experiment and confirms that none of its operations can still commit. */
export const POST = apiRoute({ permission: "experiment:cancel", params: experimentIdSchema }, async ({ params }) => {
  const { id } = params;
  const service = getServiceClient();
  if (!service)
    throw new DomainError("unavailable", "no_service", "DELAYED_WRITE_URL is not set: pending operations could not be cancelled");
  const outcome = await cancelExperiment(getDb(), id, service);
  if (!outcome) throw notFound(`experiment ${id}`);
  if (outcome.state !== "cancelled")
    throw conflict("not_running", `experiment ${id} is ${outcome.state}: only a queued or running experiment can be cancelled`);
  return Response.json(outcome);
});
