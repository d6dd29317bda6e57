import { z } from "zod";
import { PAPER_TRACE, traceSchema } from "./trace";

export const FINALITY_POLICIES = [
  "snapshot",
  "reconciliation",
  "verified_cancellation",
  "sync_snapshot",
  "sync_reconciliation",
  "sync_verified_cancellation",
] as const;
export type FinalityPolicy = (typeof FINALITY_POLICIES)[number];

export const SEPARATION_CONDITIONS = ["shared", "namespaced", "verified_reset", "no_write", "b_before_a", "grouped"] as const;
export type SeparationCondition = (typeof SEPARATION_CONDITIONS)[number];

export const PAPER_DELAYS_MS = [0, 25, 100, 250] as const;
export const DEFAULT_CONCURRENCY = 64;

const uniqueList = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item)
    .min(1)
    .refine((list) => new Set(list).size === list.length, `${what} must not repeat`);

/** One replay grid: every field has the paper's value as its default. Shared by CLI, API and forms. */
export const replayConfigSchema = z.strictObject({
  delaysMs: uniqueList(z.number().int().min(0).max(10_000), "delays")
    .max(16)
    .default([...PAPER_DELAYS_MS]),
  schedules: z.number().int().min(1).max(100).default(5),
  repetitions: z.number().int().min(1).max(1_000).default(10),
  concurrency: z.number().int().min(1).max(512).default(DEFAULT_CONCURRENCY),
  finalityPolicies: uniqueList(z.enum(FINALITY_POLICIES), "finality policies").default([...FINALITY_POLICIES]),
  separationConditions: uniqueList(z.enum(SEPARATION_CONDITIONS), "separation conditions").default([...SEPARATION_CONDITIONS]),
  /** B is scored this long after A's write was due, and only once A's operation is terminal. */
  scoringMarginMs: z.number().int().min(0).max(1_000).default(5),
  /** Predeclared rule for environment failures: how often a trial is retried before it is recorded as one. */
  environmentFailureRetries: z.number().int().min(0).max(5).default(1),
  /**
   * Predeclared rule for the replay's own lag: how often a trial whose harness was late for its delay
   * (its labels would measure our lag, not the policy) is retried before it is recorded as an
   * environment failure. Six, with pauses that double (run-grid.ts): at three, a unit on a loaded machine
   * was late on every attempt and its cell came out one run short.
   */
  harnessLateRetries: z.number().int().min(0).max(10).default(6),
  /**
   * The traces replayed, each under the whole grid: by default the paper's one trace. Library
   * selections (lib/traces/) are resolved into this list when the experiment is created, so that a
   * stored experiment says exactly what it replayed.
   */
  traces: z
    .array(traceSchema)
    .min(1)
    .max(200)
    .refine((list) => new Set(list.map((t) => t.taskId)).size === list.length, "traces must not repeat a task id")
    .default([PAPER_TRACE]),
});
export type ReplayConfig = z.infer<typeof replayConfigSchema>;
export type ReplayConfigInput = z.input<typeof replayConfigSchema>;
