// What every importer turns one log file into: the runs to ingest (the run record of
// lib/evaluations/run-record-schema.ts, nothing more), the evaluation they belong to by default, and what a
// person should know about the mapping (notes, tools the harness does not know, samples left out).
import type { HarnessMetric } from "../evaluations/harness-metrics";
import type { CreateEvaluationBody } from "../evaluations/evaluation-requests";
import type { RunRecord } from "../evaluations/run-record-schema";

export const LOG_FORMATS = ["agentdojo", "inspect-json", "inspect-eval"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** One log's runs and the facts of its mapping. */
export interface ImportedLog {
  format: LogFormat;
  /** The evaluation these runs go to unless the user names one. */
  evaluation: CreateEvaluationBody & { name: string };
  runs: RunRecord[];
  /** How fields were mapped where the log left a choice (times, labels), in plain words. */
  notes: string[];
  /** Tools the harness's registry does not know (models invent them): kept in the tool calls, never given effects. */
  unknownTools: string[];
  /** Samples that are not runs, with why (unreadable, or no time recorded for them); an unscored sample is a run (finality unscored). */
  leftOut: { sample: string; reason: string }[];
  /** The log says it completed more samples than it holds (an archive missing entries): how many, and which where it names them. */
  incomplete?: { expected: number; found: number; missing: string[] };
  /** The figures the harness reported itself for the log (Inspect's results.scores[].metrics), stored with the evaluation. */
  harnessMetrics?: HarnessMetric[];
  /** The scorer whose values labelled the log's runs (Inspect's: the one named on import, else the first), by the log. */
  labellingScorer?: { source: string; scorer: string };
  /** Runs left without a label because their labelling scorer's values are no label (dict-valued): which scorer, how many, and the scorers readable instead. */
  unlabelled?: { scorer: string; runs: number; readable: string[] };
}

/** A file that is not imported, with a reason a person can act on. */
export class SkippedLog extends Error {
  override readonly name = "SkippedLog";
}

/** The first problem zod found, named by its path: `messages.3.role: Invalid input`. */
export function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  return issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message;
}
