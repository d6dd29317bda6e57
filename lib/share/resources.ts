import { underOneAppliedVersion } from "../evaluations/read/under-one-applied-version";
import type { Db } from "../db/prisma";
import { Prisma, type OpenEffect, type Run } from "../generated/prisma/client";
import { finalityByDelay, unresolvedRuns, type FinalityDelayRow } from "../experiments/read/experiment-aggregates";
import { DomainError } from "../errors";
import { compareStoredEvaluations, type ComparisonAnswer } from "../evaluations/read/compare";
import { evaluationTools, largestUnits } from "../evaluations/read/units-and-tools";
import { getEvaluation } from "../evaluations/read/get-evaluation";
import type { EvaluationSummary } from "../evaluations/read/read-boundary";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";
import type { ToolClass } from "../evaluations/vocabulary";
import { evaluationSummary } from "../evaluations/read/summary";
import { experimentSummary } from "../replay/store/summary";
import type { ReplaySummary } from "../replay/rules/summary-schema";
import type { ArgumentExport } from "../review/completion-export";
import { argumentView, SHARED_READER } from "../review/completion-store";
import { consensusMatrix } from "../review/review-codes-store";
import { computeTable3, type CellReviewers, type ConsensusMatrix, type Table3Row } from "../review/table3";
import type { ShareResourceType } from "./share-link-schemas";
import { canaryResults, type CanaryResults } from "../canary/canary-results-store";

// What a reviewer sees through a link. Plain JSON only (timestamps as ISO strings), so that the
// snapshot stored in jsonb and hashed is exactly what is shown.

export interface ExperimentShareContent {
  kind: "experiment";
  experiment: {
    id: string;
    /** For the banner (links made before names existed have none). Notes stay private. */
    name?: string | null;
    state: string;
    createdAt: string;
    startedAt: string | null;
    finishedAt: string | null;
    wallMs: number | null;
    error: string | null;
    config: Prisma.JsonValue;
  };
  summary: ReplaySummary;
  byDelay: FinalityDelayRow[];
  unresolved: number;
}

/** A canary experiment (docs/replay.md, The canary reset check) as shared: its per-surface results instead of the replay's summary. */
export interface CanaryExperimentShareContent {
  kind: "canary_experiment";
  experiment: Omit<ExperimentShareContent["experiment"], "config" | "wallMs">;
  canary: CanaryResults;
}

export interface RunShareContent {
  kind: "run";
  run: Omit<Run, "createdAt"> & { createdAt: string };
  experiment: { id: string; state: string };
  openEffects: OpenEffect[];
}

/** The protocol-review matrix as shared: the consensus codes and Table 3, never a reviewer's own codes. */
export interface ProtocolMatrixShareContent {
  kind: "protocol_matrix";
  protocols: { name: string; citation: string }[];
  consensus: ConsensusMatrix;
  /** How many reviewers coded each cell (absent from links made before it was shared): a consensus resting on one is marked. */
  consensusReviewers?: CellReviewers;
  table3: Table3Row[];
  /** Each protocol's completion argument, where one is written (links made before teams could write arguments have none). */
  arguments?: CompletionArgumentShareContent[];
}

/** An evaluation's audit as shared: its figures, units and policy; its description and creator stay private, as an experiment's notes do. */
export interface EvaluationShareContent {
  kind: "evaluation";
  evaluation: {
    id: string;
    name: string;
    harness: string | null;
    benchmark: string | null;
    createdAt: string;
    effectPolicyVersion: number;
    effectPolicy: EffectPolicy;
  };
  summary: EvaluationSummary;
  largestUnits: { unit: string; runs: number; surfaces: string[] }[];
  tools: { tool: string; class: ToolClass; effects: number; calls: number }[];
}

/** A protocol's completion argument as shared: the argument, its status and evidence, without who wrote it or links into the instance. */
export interface CompletionArgumentShareContent extends ArgumentExport {
  kind: "completion_argument";
  revisions: { version: number; reason: string; createdAt: string }[];
}

/** A comparison of evaluations as shared: the whole answer of GET /api/v1/evaluations/compare, under the one rule it names. */
export interface ComparisonShareContent {
  kind: "comparison";
  comparison: ComparisonAnswer;
}

export type ShareContent =
  | ExperimentShareContent
  | CanaryExperimentShareContent
  | RunShareContent
  | ProtocolMatrixShareContent
  | EvaluationShareContent
  | CompletionArgumentShareContent
  | ComparisonShareContent;

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** The content of the resource, or null when it does not exist (`resourceIds`: a comparison's evaluations, in order). */
export async function loadShareContent(
  db: Db,
  resourceType: ShareResourceType,
  resourceId: string | null,
  resourceIds: readonly string[] = [],
): Promise<ShareContent | null> {
  switch (resourceType) {
    case "experiment":
      return resourceId === null ? null : loadExperimentContent(db, resourceId);
    case "run":
      return resourceId === null ? null : loadRunContent(db, resourceId);
    case "protocol_matrix":
      return loadProtocolMatrixContent(db);
    case "evaluation":
      return resourceId === null ? null : loadEvaluationContent(db, resourceId);
    case "completion_argument":
      return resourceId === null ? null : loadCompletionArgumentContent(db, resourceId);
    case "comparison":
      return loadComparisonContent(db, resourceIds);
    default:
      throw new Error(`share links cannot show a ${resourceType satisfies never}`);
  }
}

async function loadExperimentContent(db: Db, id: string): Promise<ExperimentShareContent | CanaryExperimentShareContent | null> {
  const found = await db.experiment.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      state: true,
      createdAt: true,
      startedAt: true,
      finishedAt: true,
      wallMs: true,
      error: true,
      config: true,
      kind: true,
    },
  });
  if (!found) return null;
  const { kind, ...experiment } = found;
  if (kind === "canary") {
    const canary = await canaryResults(db, id);
    if (!canary) return null;
    const { config: _config, wallMs: _wallMs, ...shown } = experiment;
    return {
      kind: "canary_experiment",
      experiment: {
        ...shown,
        createdAt: shown.createdAt.toISOString(),
        startedAt: iso(shown.startedAt),
        finishedAt: iso(shown.finishedAt),
      },
      canary,
    };
  }
  const summary = await experimentSummary(db, id).catch(deletedMeanwhile);
  if (!summary) return null;
  const [byDelay, unresolved] = await Promise.all([finalityByDelay(db, id), unresolvedRuns(db, id)]);
  return {
    kind: "experiment",
    experiment: {
      ...experiment,
      createdAt: experiment.createdAt.toISOString(),
      startedAt: iso(experiment.startedAt),
      finishedAt: iso(experiment.finishedAt),
    },
    summary,
    byDelay,
    unresolved,
  };
}

/** An experiment deleted between our two reads is as gone as one never found. */
function deletedMeanwhile(error: unknown): null {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") return null;
  throw error;
}

async function loadRunContent(db: Db, id: string): Promise<RunShareContent | null> {
  const found = await db.run.findUnique({
    where: { id },
    include: {
      experiment: { select: { id: true, state: true } },
      // A stable order, so that an unchanged run always hashes the same.
      openEffects: { orderBy: [{ tracePosition: "asc" }, { id: "asc" }] },
    },
  });
  if (!found) return null;
  const { experiment, openEffects, createdAt, ...columns } = found;
  return { kind: "run", run: { ...columns, createdAt: createdAt.toISOString() }, experiment, openEffects };
}

/** Whether the resource exists (a live link stores no content, so it only needs this). */
export async function shareResourceExists(
  db: Db,
  resourceType: ShareResourceType,
  resourceId: string | null,
  resourceIds: readonly string[] = [],
): Promise<boolean> {
  if (resourceType === "protocol_matrix") return true;
  if (resourceType === "comparison")
    return resourceIds.length >= 2 && (await db.evaluation.count({ where: { id: { in: [...resourceIds] } } })) === resourceIds.length;
  if (resourceId === null) return false;
  const where = { where: { id: resourceId }, select: { id: true } } as const;
  switch (resourceType) {
    case "experiment":
      return (await db.experiment.findUnique(where)) !== null;
    case "run":
      return (await db.run.findUnique(where)) !== null;
    case "evaluation":
      return (await db.evaluation.findUnique(where)) !== null;
    case "completion_argument":
      return (await db.reviewProtocol.findUnique(where)) !== null;
    default:
      throw new Error(`share links cannot point at a ${resourceType satisfies never}`);
  }
}

async function loadProtocolMatrixContent(db: Db): Promise<ProtocolMatrixShareContent> {
  const { protocols, reference, matrix, reviewers } = await consensusMatrix(db);
  const citations = new Map(
    (await db.reviewProtocol.findMany({ select: { name: true, citation: true } })).map((p) => [p.name, p.citation]),
  );
  const argued = await db.completionArgument.findMany({ select: { protocolId: true }, orderBy: { protocol: { position: "asc" } } });
  const args = (await Promise.all(argued.map((a) => loadCompletionArgumentContent(db, a.protocolId)))).filter(
    (a): a is CompletionArgumentShareContent => a !== null,
  );
  return {
    kind: "protocol_matrix",
    protocols: protocols.map((name) => ({ name, citation: citations.get(name) ?? "" })),
    consensus: matrix,
    consensusReviewers: reviewers,
    table3: computeTable3(reference, matrix, reviewers),
    arguments: args,
  };
}

async function loadCompletionArgumentContent(db: Db, protocolId: string): Promise<CompletionArgumentShareContent | null> {
  const view = await argumentView(db, SHARED_READER, protocolId, { shared: true });
  if (!view) return null;
  const { protocol, consensus, current, evidence, status, revisions } = view;
  // Plain JSON only (the snapshot is hashed): undefined fields dropped.
  return JSON.parse(
    JSON.stringify({
      kind: "completion_argument",
      protocol: { name: protocol.name, benchmarkVersion: protocol.benchmarkVersion, scope: protocol.scope },
      consensus,
      current,
      evidence,
      status,
      revisions: revisions.map((r) => ({ version: r.version, reason: r.reason, createdAt: r.createdAt })),
    }),
  ) as CompletionArgumentShareContent;
}

/** An evaluation's snapshot, every part of it under one applied policy version. */
async function loadEvaluationContent(db: Db, id: string): Promise<EvaluationShareContent | null> {
  return underOneAppliedVersion(db, id, () => readEvaluationContent(db, id));
}

async function readEvaluationContent(db: Db, id: string): Promise<EvaluationShareContent | null> {
  const evaluation = await getEvaluation(db, id);
  if (!evaluation) return null;
  // Deleted between the two reads: as gone as one never found.
  const summary = await evaluationSummary(db, id).catch((error: unknown) => {
    if (error instanceof DomainError && error.kind === "not_found") return null;
    throw error;
  });
  if (!summary) return null;
  const [units, tools] = await Promise.all([largestUnits(db, id), evaluationTools(db, id, evaluation.effectPolicy)]);
  const { name, harness, benchmark, createdAt, effectPolicyVersion, effectPolicy } = evaluation;
  return {
    kind: "evaluation",
    evaluation: { id, name, harness, benchmark, createdAt, effectPolicyVersion, effectPolicy },
    summary,
    largestUnits: units,
    tools,
  };
}

async function loadComparisonContent(db: Db, ids: readonly string[]): Promise<ComparisonShareContent | null> {
  if (ids.length < 2) return null;
  // An evaluation deleted since: the comparison is as gone as one never made.
  const comparison = await compareStoredEvaluations(db, ids).catch((error: unknown) => {
    if (error instanceof DomainError && error.kind === "not_found") return null;
    throw error;
  });
  // Its Wilson bounds are floats of 17 significant digits, and the stored jsonb snapshot reads back
  // with 15: kept at 15 here, so the frozen snapshot hashes the same when it is shown.
  return (
    comparison &&
    (JSON.parse(
      JSON.stringify({ kind: "comparison", comparison }, (_key, value: unknown) =>
        typeof value === "number" ? Number(value.toPrecision(15)) : value,
      ),
    ) as ComparisonShareContent)
  );
}
