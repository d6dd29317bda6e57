// A protocol's completion argument (the paper, §6; docs/review.md): the four questions, each
// answered with its ledger, question 3's routes, and question 4's evidence links. One zod schema
// for the form, the route and the store. Pure: no database.
import { z } from "zod";
import { int4, pgDate } from "../http/storable";

export const QUESTIONS = [
  {
    key: "outcome",
    number: 1,
    text: "What outcome does the score represent, over what period is it judged, and what counts as one analysis unit?",
  },
  { key: "endpoint", number: 2, text: "What ends the interaction, and what determines the score?" },
  { key: "remaining", number: 3, text: "What can remain active after the endpoint or affect another run?" },
  { key: "finality", number: 4, text: "How does the protocol establish finality and separation?" },
] as const;
export type QuestionKey = (typeof QUESTIONS)[number]["key"];
export const QUESTION_KEYS = QUESTIONS.map((q) => q.key) as [QuestionKey, ...QuestionKey[]];

export const ROUTE_KINDS = [
  "descendant_processes",
  "queues",
  "shared_stores",
  "credentials",
  "external_resources",
  "retained_memory",
  "other",
] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];
export const ROUTE_KIND_LABELS: Record<RouteKind, string> = {
  descendant_processes: "Descendant processes",
  queues: "Queues",
  shared_stores: "Shared stores",
  credentials: "Credentials",
  external_resources: "External resources",
  retained_memory: "Retained memory",
  other: "Other",
};

export const TREATMENTS = [
  "observed_to_terminal",
  "cancelled_with_evidence",
  "blocked",
  "represented_grouped",
  "bounded",
  "unresolved",
] as const;
export type Treatment = (typeof TREATMENTS)[number];
export const TREATMENT_LABELS: Record<Treatment, string> = {
  observed_to_terminal: "Observed to terminal",
  cancelled_with_evidence: "Cancelled with evidence",
  blocked: "Blocked",
  represented_grouped: "Represented in the analysis (grouped)",
  bounded: "Bounded",
  unresolved: "Unresolved",
};

export const EVIDENCE_KINDS = ["experiment", "evaluation", "review_code"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** Every text limit, named in the error that enforces it. */
export const ARGUMENT_LIMITS = {
  answer: 8000,
  sourceLocation: 500,
  citation: 500,
  citations: 30,
  routes: 50,
  description: 2000,
  reason: 2000,
  note: 500,
  evidence: 50,
} as const;

const bounded = (name: string, max: number) =>
  z.string(`${name} must be text`).trim().max(max, `${name} must be at most ${max} characters`);

export const evidenceLinkSchema = z.strictObject({
  kind: z.enum(EVIDENCE_KINDS, `kind must be one of ${EVIDENCE_KINDS.join(", ")}`),
  id: z.uuid("id must be the linked experiment's, evaluation's or review code's id (a UUID)"),
  note: bounded("note", ARGUMENT_LIMITS.note).optional(),
});
export type EvidenceLink = z.infer<typeof evidenceLinkSchema>;
const evidenceList = z
  .array(evidenceLinkSchema)
  .max(ARGUMENT_LIMITS.evidence, `evidence: at most ${ARGUMENT_LIMITS.evidence} links`)
  .default([]);

/** One answer and its ledger, as a code has: where in the sources it rests, citations, the date read. */
export const answerSchema = z.strictObject({
  answer: bounded("answer", ARGUMENT_LIMITS.answer).default(""),
  sourceLocation: bounded("sourceLocation", ARGUMENT_LIMITS.sourceLocation).default(""),
  citations: z
    .array(bounded("citation", ARGUMENT_LIMITS.citation).min(1, "citations: a citation must not be empty"))
    .max(ARGUMENT_LIMITS.citations, `citations: at most ${ARGUMENT_LIMITS.citations}`)
    .default([]),
  sourcesReadOn: pgDate("sourcesReadOn must be the date the sources were read (YYYY-MM-DD, from 0001)").nullable().default(null),
});
export type Answer = z.infer<typeof answerSchema>;

export const routeSchema = z
  .strictObject({
    kind: z.enum(ROUTE_KINDS, `kind must be one of ${ROUTE_KINDS.join(", ")}`),
    description: bounded("description", ARGUMENT_LIMITS.description).min(1, "description: say what can remain active or cross runs"),
    scope: z.enum(["in", "out"], "scope must be in or out (of the declared scope)"),
    scopeReason: bounded("scopeReason", ARGUMENT_LIMITS.description).default(""),
    treatment: z.enum(TREATMENTS, `treatment is required: one of ${TREATMENTS.join(", ")}`),
    treatmentNote: bounded("treatmentNote", ARGUMENT_LIMITS.description).default(""),
    evidence: evidenceList,
  })
  .superRefine((route, ctx) => {
    if (route.scope === "out" && !route.scopeReason)
      ctx.addIssue({ code: "custom", path: ["scopeReason"], message: "scopeReason: a route out of the declared scope needs the reason" });
  });
export type ArgumentRoute = z.infer<typeof routeSchema>;

export const argumentSchema = z.strictObject({
  questions: z.strictObject(
    Object.fromEntries(
      QUESTION_KEYS.map((k) => [k, answerSchema.default({ answer: "", sourceLocation: "", citations: [], sourcesReadOn: null })]),
    ) as Record<QuestionKey, ReturnType<typeof answerSchema.default>>,
  ),
  /** Question 3, structured: each route by which work can outlive the endpoint or cross runs. */
  routes: z.array(routeSchema).max(ARGUMENT_LIMITS.routes, `routes: at most ${ARGUMENT_LIMITS.routes}`).default([]),
  /** Question 4's evidence: experiments, evaluations and this protocol's own review codes. */
  evidence: evidenceList,
});
export type CompletionArgument = z.infer<typeof argumentSchema>;

/** POST /api/v1/protocols/{id}/completion-argument: a new revision from the version the form showed. */
export const argumentRevisionSchema = z.strictObject({
  expectedVersion: int4("expectedVersion (the version you edited, or null for the first)", 1).nullable(),
  argument: argumentSchema,
  reason: z
    .string("reason is required")
    .trim()
    .min(1, "reason: every change needs a reason")
    .max(ARGUMENT_LIMITS.reason, `reason must be at most ${ARGUMENT_LIMITS.reason} characters`),
});
export type ArgumentRevisionInput = z.infer<typeof argumentRevisionSchema>;

export const argumentQuerySchema = z.strictObject({
  format: z.enum(["markdown", "latex", "json"], "format must be markdown, latex or json").optional(),
});

/** An empty argument: what the page's form starts from. */
export const emptyArgument = (): CompletionArgument => argumentSchema.parse({ questions: {} });

/** Every evidence link of an argument (question 4's and each route's), with where it sits. */
export function evidenceLinks(argument: CompletionArgument): { link: EvidenceLink; path: string }[] {
  return [
    ...argument.evidence.map((link, i) => ({ link, path: `argument.evidence.${i}` })),
    ...argument.routes.flatMap((r, ri) => r.evidence.map((link, i) => ({ link, path: `argument.routes.${ri}.evidence.${i}` }))),
  ];
}
