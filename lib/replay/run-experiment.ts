import { DelayedWriteClient } from "../delayed-write/client";
import type { Db } from "../db/prisma";
import type { ReplayConfig } from "./config";
import type { ReplayContext } from "./context";
import { createExperiment, finalizeExperiment, markExperimentFailed, markExperimentStarted, recordService, saveUnitResults } from "./persist";
import { runGrid } from "./run-grid";
import { warmUp } from "./warmup";
import { experimentSummary } from "./summary";
import type { ReplaySummary } from "./summary-schema";

/** A replay context against the service at `serviceUrl`, with the service's clock estimated from its time origin. */
export async function connectReplay(serviceUrl: string, config: ReplayConfig, namespacePrefix: string): Promise<ReplayContext> {
  const client = new DelayedWriteClient(serviceUrl);
  const { timeOrigin } = await client.clock();
  await warmUp(client, `${namespacePrefix}-warmup`, config.concurrency);
  const offset = performance.timeOrigin - timeOrigin;
  return {
    client,
    serviceUrl,
    namespacePrefix,
    trace: config.trace,
    scoringMarginMs: config.scoringMarginMs,
    serviceTimeOrigin: timeOrigin,
    serviceNow: () => performance.now() + offset,
  };
}

/**
 * Runs one whole replay grid in this process against the delayed-write service and stores it as
 * an experiment; the checks then run on the evidence as stored.
 */
export async function replayExperiment(db: Db, config: ReplayConfig, serviceUrl: string): Promise<ReplaySummary> {
  const experimentId = await createExperiment(db, config);
  let ctx: ReplayContext | undefined;
  try {
    ctx = await connectReplay(serviceUrl, config, `bl/${experimentId}`);
    await recordService(db, experimentId, { url: serviceUrl, timeOrigin: ctx.serviceTimeOrigin });
    await markExperimentStarted(db, experimentId);
    // Stored after the grid, not during it: database work in this process would delay the
    // replay's own requests, and the shortest delay it measures is 25 ms (docs/replay.md).
    const results = await runGrid(ctx, config);
    for (let i = 0; i < results.length; i += 200) {
      await saveUnitResults(db, results.slice(i, i + 200).map((result) => ({ experimentId, result })));
    }
    await finalizeExperiment(db, experimentId);
  } catch (error) {
    await markExperimentFailed(db, experimentId, (error as Error).message);
    throw error;
  } finally {
    await ctx?.client.close();
  }
  return experimentSummary(db, experimentId);
}
