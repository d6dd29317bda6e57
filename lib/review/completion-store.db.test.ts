import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { DomainError } from "../errors";
import { parseInput } from "../http/input";
import { loadShareContent, shareResourceExists } from "../share/resources";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { argumentLatex, argumentMarkdown } from "./completion-export";
import { argumentRevisionSchema } from "./completion-schema";
import { argumentView, saveArgument } from "./completion-store";
import { createProtocol, updateProtocol } from "./protocols";
import { saveCodeSchema } from "./review-schemas";
import { loadPaperReference, saveCode, setConsensus } from "./review-codes-store";

// Completion arguments on a real PostgreSQL: revisions and conflicts, evidence links checked when
// saved and resolved when shown (an experiment cancelled later stays linked, with its state), flags.
let database: TestDatabase;
let db: Db;
let protocolId: string;
let experimentId: string;
let evaluationId: string;
const eve = { userId: "eve", seesAll: true };

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  for (const id of ["ana", "ben", "eve"])
    await db.user.create({ data: { id, email: `${id}@example.test`, name: id, role: id === "eve" ? "editor" : "reviewer" } });
  await loadPaperReference(db);
  protocolId = (await createProtocol(db, "eve", { name: "Our_Bench & Co" })).id;
  await setConsensus(db, "eve", {
    protocolId,
    field: "reset_or_retention",
    expectedVersion: null,
    code: "E",
    rationale: "the harness resets every store",
    reason: "reconciled",
  });
  experimentId = (await db.experiment.create({ data: { state: "completed", name: "canary 1", config: {} } })).id;
  evaluationId = (await db.evaluation.create({ data: { name: "nightly run" } })).id;
});
afterAll(async () => {
  await database?.drop();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) =>
      error instanceof DomainError
        ? { kind: error.kind, code: error.code, field: error.field, message: error.message, details: error.details }
        : error,
  );

const argument = (evidence: object[] = [{ kind: "experiment", id: "EXP" }]) => ({
  questions: {
    outcome: {
      answer: "Task success per episode; one episode is one unit.",
      sourceLocation: "README §Scoring",
      citations: ["[1]"],
      sourcesReadOn: "2026-11-30",
    },
    endpoint: { answer: "The stop action; the checker scores 100% of the state." },
    remaining: { answer: "Background jobs and the shared cache." },
    finality: { answer: "A canary replay shows every job cancelled before scoring." },
  },
  routes: [
    {
      kind: "descendant_processes",
      description: "Background shell jobs",
      scope: "in",
      treatment: "cancelled_with_evidence",
      evidence: [{ kind: "experiment", id: experimentId }],
    },
    { kind: "shared_stores", description: "The shared cache", scope: "in", treatment: "unresolved" },
  ],
  evidence: evidence.map((e) => JSON.parse(JSON.stringify(e).replace("EXP", experimentId))),
});
const save = (expectedVersion: number | null, arg: object = argument(), reason = "first draft", actor = eve, id = protocolId) =>
  saveArgument(db, actor, id, parseInput(argumentRevisionSchema, { expectedVersion, argument: arg, reason }, "body"));

describe("completion argument revisions", () => {
  it("saves versions with who and why, refuses a stale edit with both versions, and keeps every revision", async () => {
    expect(await save(null)).toEqual({ version: 1 });
    const second = argument();
    second.questions.endpoint.answer = "The stop action, then a 30 s drain.";
    expect(await save(1, second, "the drain is documented")).toEqual({ version: 2 });
    const stale = await refusal(save(1, argument(), "from an old tab"));
    expect(stale).toMatchObject({ kind: "conflict", code: "edit_conflict", field: "expectedVersion" });
    const details = (
      stale as { details: { current: { version: number; argument: { questions: { endpoint: { answer: string } } } }; yours: unknown } }
    ).details;
    expect([details.current.version, details.current.argument.questions.endpoint.answer]).toEqual([
      2,
      "The stop action, then a 30 s drain.",
    ]);
    expect(details.yours).toMatchObject({ questions: { endpoint: { answer: "The stop action; the checker scores 100% of the state." } } });
    expect(await refusal(save(null, argument(), "as new again"))).toMatchObject({ kind: "conflict" });

    const view = (await argumentView(db, eve, protocolId))!;
    expect(view.current).toMatchObject({ version: 2, updatedBy: "eve@example.test" });
    expect(view.revisions.map((r) => [r.version, r.author, r.reason])).toEqual([
      [1, "eve@example.test", "first draft"],
      [2, "eve@example.test", "the drain is documented"],
    ]);
    await expect(db.$executeRaw`UPDATE completion_argument_revisions SET reason = 'rewritten'`).rejects.toThrow(/append-only/);
  });

  it("shows the status: four answered, the untreated route, and the flag against the reset code E", async () => {
    const { status } = (await argumentView(db, eve, protocolId))!;
    expect([status!.answered, status!.of, status!.routesLackingTreatment, status!.routesLackingEvidence]).toEqual([4, 4, [1], []]);
    expect(status!.flags.map((f) => f.rule)).toEqual(["reset_explicit_route_untreated"]);
  });
});

describe("evidence links", () => {
  it("refuses a link to something that does not exist, naming the link, and writes nothing", async () => {
    const before = await db.completionArgumentRevision.count();
    const missing = await refusal(save(2, argument([{ kind: "evaluation", id: "00000000-0000-4000-8000-000000000000" }]), "bad link"));
    expect(missing).toMatchObject({ kind: "invalid", code: "invalid_evidence", field: "argument.evidence.0.id" });
    expect(await db.completionArgumentRevision.count()).toBe(before);
  });

  it("refuses a review code of another protocol, and one the author cannot read (blind coding)", async () => {
    const webArena = (await db.reviewProtocol.findUniqueOrThrow({ where: { name: "WebArena" } })).id;
    const paperCode = await db.reviewCode.findFirstOrThrow({ where: { protocolId: webArena } });
    expect(await refusal(save(2, argument([{ kind: "review_code", id: paperCode.id }]), "other protocol's code"))).toMatchObject({
      kind: "invalid",
      field: "argument.evidence.0.id",
    });
    const anasCode = await saveCode(
      db,
      "ana",
      parseInput(
        saveCodeSchema,
        {
          protocolId,
          field: "open_work",
          expectedVersion: null,
          ledger: { code: "NR", sourceLocation: "README", citations: [], sourcesReadOn: "2026-11-30" },
          reason: "first",
        },
        "body",
      ),
    );
    const anaRow = await db.reviewCode.findFirstOrThrow({ where: { protocolId, reviewerId: "ana" } });
    expect(anasCode.version).toBe(1);
    // Ben has not coded this protocol: Ana's code is hidden from him, so he cannot cite it.
    const blind = await refusal(save(2, argument([{ kind: "review_code", id: anaRow.id }]), "cite ana", { userId: "ben", seesAll: false }));
    expect(blind).toMatchObject({ kind: "invalid", message: expect.stringContaining("that you can read") });
    // An editor sees every code: the link is kept, with the code shown.
    expect(
      await save(
        2,
        argument([
          { kind: "review_code", id: anaRow.id },
          { kind: "evaluation", id: evaluationId },
          { kind: "experiment", id: "EXP" },
        ]),
        "cite the codes",
      ),
    ).toEqual({ version: 3 });
    const view = (await argumentView(db, eve, protocolId))!;
    expect(view.evidence[`review_code:${anaRow.id}`]).toMatchObject({ exists: true, label: "open_work: NR (ana@example.test, version 1)" });
    expect(view.evidence[`evaluation:${evaluationId}`]).toMatchObject({
      exists: true,
      label: "nightly run",
      audit: { runs: 0, scored: 0, final: 0, analysisUnits: 0 },
    });
    // A viewer who may not see Ana's code sees the link, marked not available.
    const viewers = (await argumentView(db, { userId: "ben", seesAll: false }, protocolId))!;
    expect(viewers.evidence[`review_code:${anaRow.id}`]).toMatchObject({ exists: false });
  });

  it("keeps a link to an experiment cancelled later, with its state shown and flagged", async () => {
    await db.experiment.update({ where: { id: experimentId }, data: { state: "cancelled" } });
    const view = (await argumentView(db, eve, protocolId))!;
    expect(view.current!.argument.routes[0]!.evidence).toEqual([{ kind: "experiment", id: experimentId }]);
    expect(view.evidence[`experiment:${experimentId}`]).toMatchObject({ exists: true, state: "cancelled", label: "canary 1" });
    expect(view.status!.flags.map((f) => f.rule)).toContain("evidence_not_completed");
    expect(view.status!.routesLackingEvidence).toEqual([]);
    expect(argumentMarkdown(view)).toContain("experiment canary 1 (cancelled)");
  });
});

describe("sharing", () => {
  it("shares the argument with its status and evidence states, naming no reviewer or author and linking nowhere inside", async () => {
    const content = await loadShareContent(db, "completion_argument", protocolId);
    expect(content).toMatchObject({
      kind: "completion_argument",
      protocol: { name: "Our_Bench & Co" },
      current: { version: 3, updatedBy: null },
      status: { answered: 4 },
    });
    const text = JSON.stringify(content);
    expect(text).not.toContain("@example.test");
    expect(text).toContain("open_work: NR (a reviewer, version 1)");
    expect(text).not.toContain('"href":"/');
    expect(await shareResourceExists(db, "completion_argument", protocolId)).toBe(true);
    expect(await loadShareContent(db, "completion_argument", "00000000-0000-4000-8000-000000000000")).toBeNull();
    // The shared protocol matrix carries every written argument too.
    const matrix = await loadShareContent(db, "protocol_matrix", null);
    expect(matrix?.kind === "protocol_matrix" && matrix.arguments?.map((a) => [a.protocol.name, a.current?.version])).toEqual([
      ["Our_Bench & Co", 3],
    ]);
  });
});

describe("exports and a retired protocol", () => {
  it("exports Markdown and LaTeX with the protocol's special characters escaped", async () => {
    const view = (await argumentView(db, eve, protocolId))!;
    const md = argumentMarkdown(view);
    expect(md).toContain("# Completion argument: Our\\_Bench & Co");
    expect(md).toContain("| 2 | Shared stores | The shared cache | in | Unresolved | none |");
    const tex = argumentLatex(view);
    expect(tex).toContain("\\section*{Completion argument: Our\\_Bench \\& Co}");
    expect(tex).toContain("the checker scores 100\\% of the state");
    expect(tex).toContain("README §Scoring; [1]; read 2026-11-30");
    expect(tex).not.toMatch(/[^\\]%/); // no unescaped percent sign would comment out the rest of a line
  });

  it("refuses a new version on a retired protocol, keeping the argument as it was", async () => {
    const p = await db.reviewProtocol.findUniqueOrThrow({ where: { id: protocolId } });
    await updateProtocol(db, "eve", protocolId, { retired: true, expectedVersion: p.version, reason: "superseded" });
    expect(await refusal(save(3, argument(), "after retirement"))).toMatchObject({ kind: "conflict", code: "retired" });
    expect((await argumentView(db, eve, protocolId))!.current!.version).toBe(3);
  });
});
