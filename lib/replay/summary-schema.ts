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
