import { DelayedWriteClient } from "../delayed-write/client";
import type { Db } from "../db/prisma";
import { implementationChecks } from "./checks";
import type { ReplayConfig } from "./config";
import type { ReplayContext } from "./context";
import { createExperiment, markExperimentFailed, saveReplay } from "./persist";
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
 * Runs one whole replay grid against the delayed-write service and stores it as an experiment:
 * created as running, then saved with every run, effect and check in one transaction.
 */
export async function replayExperiment(db: Db, config: ReplayConfig, serviceUrl: string): Promise<ReplaySummary> {
  const experimentId = await createExperiment(db, config);
  let ctx: ReplayContext | undefined;
  try {
    ctx = await connectReplay(serviceUrl, config, `bl/${experimentId}`);
    const started = performance.now();
    const results = await runGrid(ctx, config);
    const wallMs = performance.now() - started;
    const checks = implementationChecks(results, config);
    await saveReplay(db, experimentId, { results, checks, wallMs, service: { url: serviceUrl, timeOrigin: ctx.serviceTimeOrigin } });
  } catch (error) {
    await markExperimentFailed(db, experimentId, (error as Error).message);
    throw error;
  } finally {
    await ctx?.client.close();
  }
  return experimentSummary(db, experimentId);
}
