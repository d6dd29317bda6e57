import { DelayedWriteClient } from "../../delayed-write/delayed-write-client";
import type { Db } from "../../db/prisma";
import type { ReplayConfig } from "../rules/config";
import type { ReplayContext } from "./context";
import { UnitResultWriter } from "../store/batch-writer";
import { markExperimentInterrupted, ownExperiment, sweepInterruptedExperiments } from "./in-process-runner";
import { createExperiment, finalizeExperiment, markExperimentFailed, markExperimentStarted, recordService } from "../store/persist";
import { runGrid, voidedAttemptLine } from "./run-grid";
import { warmUp } from "./warmup";
import { experimentSummary } from "../store/summary";
import type { ReplaySummary } from "../rules/summary-schema";

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
    // Each unit replays its own trace (run-grid.ts); the first stands in until then.
    trace: config.traces[0]!,
    scoringMarginMs: config.scoringMarginMs,
    serviceTimeOrigin: timeOrigin,
    serviceNow: () => performance.now() + offset,
  };
}

/** Registers what to do when the process is interrupted (SIGINT, SIGTERM), before it exits. */
export type WhenInterrupted = (hook: (signal: NodeJS.Signals) => Promise<void>) => void;

/**
 * Runs one whole replay grid in this process against the delayed-write service and stores it as
 * an experiment, each unit as it finishes; the checks then run on the evidence as stored. A process
 * interrupted mid-grid keeps what ran: on SIGINT/SIGTERM it stores what is batched and marks the
 * experiment interrupted; after a SIGKILL, the next replay, worker or listing finds its runner gone
 * (in-process-runner.ts) and does so. `log` hears of every attempt voided because its harness was late.
 */
export async function replayExperiment(
  db: Db,
  config: ReplayConfig,
  serviceUrl: string,
  whenInterrupted: WhenInterrupted = () => {},
  log: (line: string) => void = () => {},
): Promise<ReplaySummary> {
  await sweepInterruptedExperiments(db);
  const experimentId = await createExperiment(db, config);
  // The worker's batch writer, in large batches: at 64 units at once, storing every 50 ms (the
  // worker's setting) or 25 ms made the replay's own lag reach the 25 ms delay (1 and 17 units left
  // as environment failures in lib/replay/run/replay.db.test.ts); a batch every 2 s kept Table 2 exact.
  // A SIGKILL loses at most those 2 s of units; SIGINT and SIGTERM store them first.
  const writer = new UnitResultWriter(db, { maxUnits: 1024, maxWaitMs: 2_000 });
  let ctx: ReplayContext | undefined;
  let runner: { stop(): void } | undefined;
  try {
    runner = await ownExperiment(db, experimentId);
    whenInterrupted(async (signal) => {
      await writer.flush();
      await markExperimentInterrupted(db, experimentId, `${signal} before the grid finished`);
    });
    ctx = await connectReplay(serviceUrl, config, `bl/${experimentId}`);
    await recordService(db, experimentId, { url: serviceUrl, timeOrigin: ctx.serviceTimeOrigin });
    await markExperimentStarted(db, experimentId);
    let storeFailure: unknown = null;
    const stored: Array<Promise<unknown>> = [];
    await runGrid({ ...ctx, onHarnessLate: (voided) => log(voidedAttemptLine(voided)) }, config, (result) => {
      // Caught at once (and rethrown below): a rejection left waiting for the grid would end the process.
      stored.push(writer.write({ experimentId, result }).catch((error: unknown) => (storeFailure ??= error)));
    });
    await writer.flush();
    await Promise.all(stored);
    if (storeFailure) throw storeFailure;
    await finalizeExperiment(db, experimentId);
  } catch (error) {
    await markExperimentFailed(db, experimentId, (error as Error).message);
    throw error;
  } finally {
    runner?.stop();
    await ctx?.client.close();
  }
  return experimentSummary(db, experimentId);
}
