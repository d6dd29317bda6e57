import { z } from "zod";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "./config";

const count = z.number().int().min(0);

/** The replay summary: what `npm run replay -- --json FILE` writes. Every rate is a count pair. */
export const replaySummarySchema = z.object({
  experimentId: z.string(),
  config: z.object({ delaysMs: z.array(z.number()), schedules: count, repetitions: count }),
  finality: z.array(
    z.object({
      policy: z.enum(FINALITY_POLICIES),
      trials: count,
      successes: count,
      trialsNonzeroDelay: count,
      successesNonzeroDelay: count,
      disagreements: count,
      disagreementsNonzeroDelay: count,
    }),
  ),
  separation: z.array(
    z.object({
      condition: z.enum(SEPARATION_CONDITIONS),
      pairs: count,
      exposures: count,
      runRows: count,
      analysisUnits: count,
      meanScoreB: z.number().nullable(),
    }),
  ),
  delays: z.array(z.object({ nominalMs: z.number(), medianMs: z.number(), p99Ms: z.number(), n: count })),
  checks: z.array(z.object({ name: z.string(), passed: z.boolean(), evidence: z.string() })),
  classifications: z.object({
    completed: count,
    agent_failure: count,
    protocol_stop: count,
    environment_failure: count,
    missing_evidence: count,
  }),
  wallMs: z.number(),
});
export type ReplaySummary = z.infer<typeof replaySummarySchema>;

/**
 * Results per replayed trace and per suite (an experiment of library traces): every rate as a count
 * pair. `suites` says, at each delay, how many of a suite's real tasks a snapshot scorer mislabelled
 * at least once (`tasksMislabelled` of `tasks`) and in how many trials (`mislabelled` of `trials`).
 */
export const traceResultsSchema = z.object({
  traces: z.array(
    z.object({
      taskId: z.string(),
      suite: z.string(),
      /** The trace's state-changing calls: each is a delayed write in its own key. */
      writes: count,
      finality: z.array(
        z.object({ policy: z.enum(FINALITY_POLICIES), delayMs: count, trials: count, successes: count, disagreements: count }),
      ),
      separation: z.array(z.object({ condition: z.enum(SEPARATION_CONDITIONS), delayMs: count, pairs: count, exposures: count })),
    }),
  ),
  suites: z.array(
    z.object({ suite: z.string(), delayMs: count, tasks: count, tasksMislabelled: count, trials: count, mislabelled: count }),
  ),
});
export type TraceResults = z.infer<typeof traceResultsSchema>;
