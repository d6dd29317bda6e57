// Where a completion argument stands: which questions are answered (with their ledgers), which
// routes lack a treatment or evidence, and where the argument disagrees with the protocol's review
// codes. Pure: the page, the exports and the API call the same function.
import type { ReviewCode, ReviewField } from "./codes";
import { QUESTIONS, type CompletionArgument, type EvidenceLink, type QuestionKey } from "./completion-schema";

/** What a linked item is now (store.ts resolves it): its state shows beside the link, never removes it. */
export interface EvidenceState {
  exists: boolean;
  /** An experiment's state (completed, cancelled, …); absent for other kinds. */
  state?: string;
}
export const evidenceKey = (link: Pick<EvidenceLink, "kind" | "id">) => `${link.kind}:${link.id}`;

/** Experiment states whose results stand as evidence; any other (cancelled, failed, …) is flagged. */
const FINISHED_EXPERIMENT = new Set(["completed"]);

export interface ArgumentFlag {
  rule:
    | "reset_explicit_route_untreated"
    | "open_work_explicit_route_untreated"
    | "open_work_na_with_open_routes"
    | "separation_explicit_without_evidence"
    | "evidence_not_completed"
    | "evidence_missing"
    | "remaining_without_routes";
  message: string;
}

export interface ArgumentStatus {
  questions: { key: QuestionKey; number: number; answered: boolean; ledgerComplete: boolean }[];
  answered: number;
  of: number;
  routesLackingTreatment: number[];
  routesLackingEvidence: number[];
  flags: ArgumentFlag[];
}

const OPEN_WORK_KINDS = new Set(["descendant_processes", "queues"]);

export function argumentStatus(
  argument: CompletionArgument,
  consensus: Partial<Record<ReviewField, ReviewCode>>,
  evidence: ReadonlyMap<string, EvidenceState>,
): ArgumentStatus {
  const questions = QUESTIONS.map((q) => {
    const a = argument.questions[q.key];
    const answered = a.answer.trim().length > 0;
    return {
      key: q.key,
      number: q.number,
      answered,
      ledgerComplete: answered && a.sourceLocation.trim().length > 0 && a.sourcesReadOn !== null,
    };
  });
  const inScope = argument.routes.map((r, i) => ({ r, i })).filter(({ r }) => r.scope === "in");
  const untreated = inScope.filter(({ r }) => r.treatment === "unresolved");
  // A treated route in scope rests on evidence: an unresolved one has none to show; one out of scope has its reason instead.
  const unevidenced = inScope.filter(({ r }) => r.treatment !== "unresolved" && r.evidence.length === 0);
  const routeName = (i: number) => `route ${i + 1} (${argument.routes[i]!.description.slice(0, 60)})`;
  const flags: ArgumentFlag[] = [];

  if (consensus.reset_or_retention === "E" && untreated.length) {
    flags.push({
      rule: "reset_explicit_route_untreated",
      message: `Reset or retention is coded E (explicit), but the argument leaves ${untreated.map(({ i }) => routeName(i)).join(", ")} unresolved.`,
    });
  }
  const openUntreated = untreated.filter(({ r }) => OPEN_WORK_KINDS.has(r.kind));
  if (consensus.open_work === "E" && openUntreated.length) {
    flags.push({
      rule: "open_work_explicit_route_untreated",
      message: `Open work is coded E (explicit), but ${openUntreated.map(({ i }) => routeName(i)).join(", ")} is unresolved.`,
    });
  }
  const openRoutes = inScope.filter(({ r }) => OPEN_WORK_KINDS.has(r.kind));
  if (consensus.open_work === "NA" && openRoutes.length) {
    flags.push({
      rule: "open_work_na_with_open_routes",
      message: `Open work is coded NA (the execution model excludes unfinished operations), but the argument lists ${openRoutes.map(({ i }) => routeName(i)).join(", ")} in scope.`,
    });
  }
  // Question 3's routes are its structured answer: text alone counts it answered, but says nothing the checks above can read.
  if (questions.find((q) => q.key === "remaining")!.answered && argument.routes.length === 0) {
    flags.push({
      rule: "remaining_without_routes",
      message:
        "Question 3 is answered in words but lists no route: add each thing that can remain active after the endpoint or reach another run (in scope or out, with its reason), so the checks against the review codes can read it.",
    });
  }
  if (consensus.separate_evidence === "E" && argument.evidence.length === 0) {
    flags.push({
      rule: "separation_explicit_without_evidence",
      message: "Evidence for separate scoring is coded E (explicit), but question 4 links no evidence.",
    });
  }
  const links = [...argument.evidence, ...argument.routes.flatMap((r) => r.evidence)];
  for (const link of links) {
    const state = evidence.get(evidenceKey(link));
    if (!state?.exists)
      flags.push({ rule: "evidence_missing", message: `The linked ${link.kind.replace("_", " ")} ${link.id} is not available to you.` });
    else if (link.kind === "experiment" && state.state !== undefined && !FINISHED_EXPERIMENT.has(state.state)) {
      flags.push({
        rule: "evidence_not_completed",
        message: `The linked experiment ${link.id} is ${state.state}: its results do not stand as evidence until it completes.`,
      });
    }
  }
  return {
    questions,
    answered: questions.filter((q) => q.answered).length,
    of: questions.length,
    routesLackingTreatment: untreated.map(({ i }) => i),
    routesLackingEvidence: unevidenced.map(({ i }) => i),
    flags,
  };
}
