import { describe, expect, it } from "vitest";
import { argumentSchema, emptyArgument, type CompletionArgument } from "./completion-schema";
import { argumentStatus, evidenceKey, type EvidenceState } from "./completion-status";

const EXP = "11111111-1111-4111-8111-111111111111";
const EVAL = "22222222-2222-4222-8222-222222222222";

const argument = (patch: object = {}): CompletionArgument =>
  argumentSchema.parse({
    questions: {
      outcome: {
        answer: "Task success per episode; one episode is one unit.",
        sourceLocation: "README §Scoring",
        sourcesReadOn: "2026-11-30",
      },
      endpoint: { answer: "The agent's stop action; a state checker scores." },
    },
    routes: [
      {
        kind: "descendant_processes",
        description: "Background shell jobs",
        scope: "in",
        treatment: "cancelled_with_evidence",
        evidence: [{ kind: "experiment", id: EXP }],
      },
      { kind: "shared_stores", description: "The shared database", scope: "in", treatment: "unresolved" },
      {
        kind: "external_resources",
        description: "Third-party email",
        scope: "out",
        scopeReason: "the sandbox blocks egress",
        treatment: "blocked",
      },
    ],
    ...patch,
  });
const states = (entries: [string, EvidenceState][] = [[`experiment:${EXP}`, { exists: true, state: "completed" }]]) => new Map(entries);

describe("argumentStatus", () => {
  it("counts answered questions and whether each has its ledger", () => {
    const s = argumentStatus(argument(), {}, states());
    expect([s.answered, s.of]).toEqual([2, 4]);
    expect(s.questions.map((q) => [q.key, q.answered, q.ledgerComplete])).toEqual([
      ["outcome", true, true],
      ["endpoint", true, false],
      ["remaining", false, false],
      ["finality", false, false],
    ]);
    expect(argumentStatus(emptyArgument(), {}, states()).answered).toBe(0);
  });

  it("names in-scope routes without a treatment or evidence; an out-of-scope route rests on its reason", () => {
    const s = argumentStatus(argument(), {}, states());
    expect(s.routesLackingTreatment).toEqual([1]);
    expect(s.routesLackingEvidence).toEqual([]);
    const bare = argument({ routes: [{ kind: "queues", description: "Job queue", scope: "in", treatment: "bounded" }] });
    expect(argumentStatus(bare, {}, states()).routesLackingEvidence).toEqual([0]);
  });

  it("flags a protocol coded E for reset whose argument leaves a route untreated", () => {
    const s = argumentStatus(argument(), { reset_or_retention: "E" }, states());
    expect(s.flags.map((f) => f.rule)).toEqual(["reset_explicit_route_untreated"]);
    expect(s.flags[0]!.message).toContain("route 2 (The shared database)");
    // Coded P, the same argument agrees: the code already says the scope is incomplete.
    expect(argumentStatus(argument(), { reset_or_retention: "P" }, states()).flags).toEqual([]);
  });

  it("flags open work coded E with an untreated process route, and NA with process routes in scope", () => {
    const untreated = argument({ routes: [{ kind: "queues", description: "Job queue", scope: "in", treatment: "unresolved" }] });
    expect(argumentStatus(untreated, { open_work: "E" }, states()).flags.map((f) => f.rule)).toEqual([
      "open_work_explicit_route_untreated",
    ]);
    expect(argumentStatus(argument(), { open_work: "NA" }, states()).flags.map((f) => f.rule)).toEqual(["open_work_na_with_open_routes"]);
  });

  it("flags question 3 answered in words with no route listed", () => {
    const remaining = { answer: "Nothing: every run gets a fresh VM." };
    const withoutRoutes = argument({ routes: [], questions: { ...argument().questions, remaining } });
    expect(argumentStatus(withoutRoutes, {}, states()).flags.map((f) => f.rule)).toEqual(["remaining_without_routes"]);
    // With its routes listed, or unanswered, nothing is flagged.
    const withRoutes = argument({ questions: { ...argument().questions, remaining } });
    expect(argumentStatus(withRoutes, {}, states()).flags).toEqual([]);
    expect(argumentStatus(argument({ routes: [] }), {}, states()).flags).toEqual([]);
  });

  it("flags separation coded E without question-4 evidence", () => {
    expect(argumentStatus(argument(), { separate_evidence: "E" }, states()).flags.map((f) => f.rule)).toEqual([
      "separation_explicit_without_evidence",
    ]);
    const linked = argument({ evidence: [{ kind: "evaluation", id: EVAL }] });
    expect(
      argumentStatus(
        linked,
        { separate_evidence: "E" },
        states([
          [`experiment:${EXP}`, { exists: true, state: "completed" }],
          [`evaluation:${EVAL}`, { exists: true }],
        ]),
      ).flags,
    ).toEqual([]);
  });

  it("keeps a link to an experiment later cancelled, flagged with its state; a link one cannot see is flagged too", () => {
    const cancelled = argumentStatus(
      argument(),
      {},
      states([[evidenceKey({ kind: "experiment", id: EXP }), { exists: true, state: "cancelled" }]]),
    );
    expect(cancelled.flags).toEqual([
      {
        rule: "evidence_not_completed",
        message: `The linked experiment ${EXP} is cancelled: its results do not stand as evidence until it completes.`,
      },
    ]);
    expect(cancelled.routesLackingEvidence).toEqual([]); // the link stays
    expect(argumentStatus(argument(), {}, states([])).flags.map((f) => f.rule)).toEqual(["evidence_missing"]);
  });
});

describe("argumentSchema", () => {
  const issue = (input: object) => {
    const r = argumentSchema.safeParse(input);
    return r.success ? null : [r.error.issues[0]!.path.join("."), r.error.issues[0]!.message];
  };
  it("refuses a route without a treatment, an out-of-scope route without its reason, and over-long text naming the limit", () => {
    expect(issue({ questions: {}, routes: [{ kind: "queues", description: "q", scope: "in" }] })).toEqual([
      "routes.0.treatment",
      expect.stringContaining("treatment is required"),
    ]);
    expect(issue({ questions: {}, routes: [{ kind: "queues", description: "q", scope: "out", treatment: "blocked" }] })).toEqual([
      "routes.0.scopeReason",
      expect.stringContaining("needs the reason"),
    ]);
    expect(issue({ questions: { outcome: { answer: "x".repeat(8001) } } })).toEqual([
      "questions.outcome.answer",
      "answer must be at most 8000 characters",
    ]);
    expect(issue({ questions: {}, evidence: [{ kind: "experiment", id: "nope" }] })).toEqual([
      "evidence.0.id",
      expect.stringContaining("UUID"),
    ]);
    expect(issue({ questions: {}, routes: [{ kind: "pipes", description: "q", scope: "in", treatment: "blocked" }] })?.[0]).toBe(
      "routes.0.kind",
    );
  });
});
