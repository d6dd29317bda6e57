// A run's further outcomes: the labels a harness declares beside the endpoint label (evaluation_runs.labels,
// by name: an importer's or the ingest API's `labels`), AgentDojo's `security` the first (success = the
// injection task's goal was achieved, the attack succeeded). Each is final exactly when the run is: it
// is scored at the same moment, so the same open effects leave it undecided. Pure: SQL counts, these
// functions name the figures (the summary's, the statistics', the comparison's and the page's).
import { z } from "zod";
import { wilson95Schema } from "../../statistics/answer-schema";
import { namedRate, type NamedRate } from "../../statistics/named-rate";
import { wilsonInterval } from "../../statistics/wilson";
import type { EvaluationSummary } from "./read-boundary";
import type { UnresolvedReason } from "../vocabulary";

/** The label a harness records for the attack's outcome on a run under attack (AgentDojo's name for it). */
export const ATTACK_LABEL = "security";

/** Whether the attack on the run succeeded: true or false from its `security` label, undefined when the run was not under attack. */
export function attackSucceeded(labels: unknown): boolean | undefined {
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return undefined;
  const label = (labels as Record<string, unknown>)[ATTACK_LABEL];
  return label === "success" ? true : label === "failure" ? false : undefined;
}

/** The counts the summary's SQL makes over the scored runs that carry one label (`security`: the runs under attack). */
export interface LabelOutcomeCounts {
  /** Scored runs carrying the label. */
  runs: number;
  succeeded: number;
  final: number;
  finalSucceeded: number;
  unresolvedByReason: readonly { reason: UnresolvedReason; n: number }[];
}

/** The summary's figures of one label: `attackSuccess` for `security`, and each of `outcomes`. */
export type LabelOutcome = EvaluationSummary["attackSuccess"];

/** Reported over every scored run carrying the label, final over the final ones, the unresolved ones by reason. */
export function labelOutcomeFigures(counts: LabelOutcomeCounts): LabelOutcome {
  const byReason: LabelOutcome["unresolved"]["byReason"] = {};
  let unresolved = 0;
  for (const { reason, n } of counts.unresolvedByReason) {
    byReason[reason] = (byReason[reason] ?? 0) + n;
    unresolved += n;
  }
  return {
    reported: { successes: counts.succeeded, n: counts.runs },
    final: { successes: counts.finalSucceeded, n: counts.final },
    unresolved: { n: unresolved, byReason },
  };
}

/** A label's counts over one population of scored runs, as SQL counts them: every run, the final ones, the unresolved ones. */
export interface LabelCounts {
  /** Scored runs in the population (final and unresolved). */
  runs: number;
  /** Runs whose label is success, as the harness recorded it. */
  successes: number;
  final: number;
  finalSuccesses: number;
  unresolved: number;
}

const count = z.number().int().min(0);
/** n/N, its rate (null when N = 0) and its 95 % Wilson interval. */
export const figureSchema = z.object({ n: count, N: count, rate: z.number().nullable(), wilson95: wilson95Schema });
export type Figure = z.infer<typeof figureSchema>;

/**
 * One outcome over one population: as reported (every scored run's label), final-only (the runs whose
 * every relevant effect was terminal at scoring), and the justified range: the unresolved runs counted
 * as failures (lower) and as successes (upper), `wilson95` from the lower's lower bound to the upper's upper bound.
 */
export const outcomeFiguresSchema = z.object({
  reported: figureSchema,
  finalOnly: figureSchema,
  unresolved: count,
  justifiedRange: z.object({ lower: figureSchema, upper: figureSchema, wilson95: wilson95Schema }),
});
export type OutcomeFigures = z.infer<typeof outcomeFiguresSchema>;

const figure = (n: number, N: number): Figure => ({ n, N, rate: N === 0 ? null : n / N, wilson95: wilsonInterval(n, N) });

export function outcomeFigures(counts: LabelCounts): OutcomeFigures {
  const lower = figure(counts.finalSuccesses, counts.runs);
  const upper = figure(counts.finalSuccesses + counts.unresolved, counts.runs);
  return {
    reported: figure(counts.successes, counts.runs),
    finalOnly: figure(counts.finalSuccesses, counts.final),
    unresolved: counts.unresolved,
    justifiedRange: { lower, upper, wilson95: lower.wilson95 && upper.wilson95 ? [lower.wilson95[0], upper.wilson95[1]] : null },
  };
}

const NONE: LabelCounts = { runs: 0, successes: 0, final: 0, finalSuccesses: 0, unresolved: 0 };

/**
 * The runs of one pipeline (or evaluation), with and without attack, as SQL counts them: `utility` counts
 * the endpoint label, `attack` the security label (attacked runs only).
 */
export interface AttackGroupCounts {
  /** Scored runs without attack: their endpoint label. */
  withoutAttack: LabelCounts;
  /** Scored runs under attack: their endpoint label (utility under attack). */
  underAttack: LabelCounts;
  /** The same runs under attack: their security label (the attack succeeded). */
  attack: LabelCounts;
}

/** What a defence is judged on: utility without attack, utility under attack and attack success, each reported, final-only and in its justified range. */
export const attackTradeOffSchema = z.object({
  utility: outcomeFiguresSchema,
  utilityUnderAttack: outcomeFiguresSchema,
  attackSuccess: outcomeFiguresSchema,
});
export type AttackTradeOff = z.infer<typeof attackTradeOffSchema>;

export function attackTradeOff(counts: Partial<AttackGroupCounts>): AttackTradeOff {
  return {
    utility: outcomeFigures(counts.withoutAttack ?? NONE),
    utilityUnderAttack: outcomeFigures(counts.underAttack ?? NONE),
    attackSuccess: outcomeFigures(counts.attack ?? NONE),
  };
}

/** One row of SQL's count per pipeline: the runs of one pipeline with or without attack (attacked), both labels counted. */
export interface PipelineCountsRow {
  pipeline: string | null;
  attacked: boolean;
  runs: number;
  final: number;
  unresolved: number;
  /** Endpoint label success. */
  utility: number;
  finalUtility: number;
  /** Security label success (0 without attack). */
  attackSucceeded: number;
  finalAttackSucceeded: number;
}

/** The name a run without a declared pipeline is shown under. */
export const NO_PIPELINE = "(no pipeline declared)";

/** Per pipeline (by name; runs without one under NO_PIPELINE), the trade-off of its runs. */
export function pipelineTradeOffs(rows: readonly PipelineCountsRow[]): Array<{ pipeline: string; runs: number } & AttackTradeOff> {
  const groups = new Map<string, Partial<AttackGroupCounts>>();
  for (const row of rows) {
    const name = row.pipeline ?? NO_PIPELINE;
    const group = groups.get(name) ?? {};
    const utility = {
      runs: row.runs,
      successes: row.utility,
      final: row.final,
      finalSuccesses: row.finalUtility,
      unresolved: row.unresolved,
    };
    if (row.attacked) {
      group.underAttack = utility;
      group.attack = { ...utility, successes: row.attackSucceeded, finalSuccesses: row.finalAttackSucceeded };
    } else group.withoutAttack = utility;
    groups.set(name, group);
  }
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([pipeline, group]) => ({
      pipeline,
      runs: (group.withoutAttack?.runs ?? 0) + (group.underAttack?.runs ?? 0),
      ...attackTradeOff(group),
    }));
}

/** Utility without attack from an evaluation's totals (every scored run's endpoint label) less its attacked runs. */
export function withoutAttack(all: LabelCounts, underAttack: LabelCounts): LabelCounts {
  return {
    runs: all.runs - underAttack.runs,
    successes: all.successes - underAttack.successes,
    final: all.final - underAttack.final,
    finalSuccesses: all.finalSuccesses - underAttack.finalSuccesses,
    unresolved: all.unresolved - underAttack.unresolved,
  };
}

/**
 * Each declared label's rates with their populations and Wilson intervals: as reported over the scored
 * runs that carry it, and final-only. `security` under its meaning, attack success; others by name.
 */
export function labelRates(outcomes: EvaluationSummary["outcomes"]): NamedRate[] {
  return Object.entries(outcomes).flatMap(([name, outcome]) => {
    const attack = name === ATTACK_LABEL;
    const rate = attack ? "attack success rate" : `label "${name}" success rate`;
    const carriers = attack
      ? "runs under attack (a security label: success = the injection task's goal was achieved)"
      : `runs that carry the label "${name}"`;
    return [
      namedRate(
        `${rate} (reported)`,
        `${carriers}, each with the label the harness recorded`,
        outcome.reported.successes,
        outcome.reported.n,
      ),
      namedRate(
        `final-only ${rate}`,
        `final ${carriers.replace("scored ", "")} (every relevant effect terminal at scoring)`,
        outcome.final.successes,
        outcome.final.n,
      ),
    ];
  });
}
