import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { DomainError } from "../errors";
import { parseInput } from "../http/input";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { REFERENCE_PROTOCOLS } from "./reference-data";
import { saveCodeSchema, type SaveCodeInput } from "./review-schemas";
import { codeHistory, consensusMatrix, loadPaperReference, restoreCode, saveCode, setConsensus, visibleCodes } from "./review-codes-store";
import { computeTable3 } from "./table3";

// The protocol review's storage on a real PostgreSQL: reference data, revisions, restore, edit
// conflicts, blind coding and the consensus.
let database: TestDatabase;
let db: Db;
let webArena: string;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  for (const id of ["ana", "ben", "eve"])
    await db.user.create({ data: { id, email: `${id}@example.test`, name: id, role: id === "eve" ? "editor" : "reviewer" } });
  await loadPaperReference(db);
  webArena = (await db.reviewProtocol.findUniqueOrThrow({ where: { name: "WebArena" } })).id;
});
afterAll(async () => {
  await database?.drop();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) =>
      error instanceof DomainError ? { kind: error.kind, code: error.code, field: error.field, details: error.details } : error,
  );

const input = (overrides: Partial<SaveCodeInput> = {}): SaveCodeInput =>
  parseInput(
    saveCodeSchema,
    {
      protocolId: webArena,
      field: "open_work",
      expectedVersion: null,
      ledger: {
        code: "P",
        sourceLocation: "Paper Sec. 3.2",
        basis: "Stop actions are specified; background work is not.",
        citations: ["37"],
        sourcesReadOn: "2026-11-20",
      },
      reason: "first reading",
      ...overrides,
    },
    "body",
  );

describe("the paper's reference data", () => {
  it("loads ten protocols, the 18 codes of Table A.1 with their ledgers, and those codes as consensus, once", async () => {
    await loadPaperReference(db); // a second start changes nothing
    expect(await db.reviewProtocol.count()).toBe(10);
    expect((await db.reviewProtocol.findMany({ orderBy: { position: "asc" } })).map((p) => p.name)).toEqual(
      REFERENCE_PROTOCOLS.map((p) => p.name),
    );
    expect(await db.reviewCode.count({ where: { fromPaper: true } })).toBe(18);
    expect(await db.reviewConsensus.count()).toBe(18);
    const ledger = await db.reviewCode.findFirstOrThrow({ where: { protocolId: webArena, field: "separate_evidence", fromPaper: true } });
    expect([ledger.code, ledger.sourceLocation, ledger.citations]).toEqual(["P", "Paper App. A.2 and ABC T.4", ["37", "38"]]);
    // Cells the paper does not code stay uncoded.
    const company = await db.reviewProtocol.findUniqueOrThrow({
      where: { name: "TheAgentCompany" },
      include: { codes: true, consensus: true },
    });
    expect([company.codes.length, company.consensus.length]).toEqual([0, 0]);
    const { protocols, matrix } = await consensusMatrix(db);
    const open = computeTable3(protocols, matrix).find((r) => r.field === "open_work")!;
    expect([open.counts, open.uncoded]).toEqual([{ E: 0, P: 1, NR: 3, NA: 2 }, 4]);
  });
});

describe("codes, revisions and conflicts", () => {
  it("refuses bad input naming the field, before anything is written", () => {
    const bad = (patch: object) => {
      try {
        input(patch as Partial<SaveCodeInput>);
        return null;
      } catch (error) {
        return (error as DomainError).field;
      }
    };
    const ledger = { code: "P", sourceLocation: "Sec. 1", basis: "b", citations: [], sourcesReadOn: "2026-11-20" };
    expect(bad({ ledger: { ...ledger, code: "X" } })).toBe("ledger.code");
    expect(bad({ ledger: { ...ledger, code: "E", basis: undefined } })).toBe("ledger.basis");
    expect(bad({ ledger: { ...ledger, sourceLocation: "  " } })).toBe("ledger.sourceLocation");
    expect(bad({ reason: "" })).toBe("reason");
    expect(bad({ ledger: { ...ledger, code: "NR", basis: undefined } })).toBeNull(); // NR needs no basis
  });

  it("saves versions with revisions, refuses a stale save with both versions, and restores as a new version", async () => {
    const v1 = await saveCode(db, "ana", input());
    expect(v1).toMatchObject({ code: "P", version: 1 });
    const v2 = await saveCode(
      db,
      "ana",
      input({
        expectedVersion: 1,
        ledger: { ...input().ledger, code: "NR", basis: undefined },
        reason: "no rule for background work after all",
      }),
    );
    expect(v2).toMatchObject({ code: "NR", version: 2 });

    // A second form still open on version 1: refused, nothing overwritten, both versions returned.
    const stale = await refusal(
      saveCode(db, "ana", input({ expectedVersion: 1, ledger: { ...input().ledger, code: "E" }, reason: "from the other tab" })),
    );
    expect(stale).toMatchObject({
      kind: "conflict",
      code: "edit_conflict",
      field: "expectedVersion",
      details: { current: { code: "NR", version: 2 }, yours: { code: "E" } },
    });
    const row = await db.reviewCode.findFirstOrThrow({ where: { protocolId: webArena, field: "open_work", reviewerId: "ana" } });
    expect([row.code, row.version]).toEqual(["NR", 2]);

    const restored = await restoreCode(db, "ana", row.id, 1, "the first reading was right");
    expect(restored).toMatchObject({ code: "P", basis: v1.basis, version: 3 });
    const history = await codeHistory(db, row.id);
    expect(
      history.map((h) => [
        h.version,
        h.kind,
        h.authorId,
        (h.previous as { code?: string } | null)?.code ?? null,
        (h.next as { code: string }).code,
      ]),
    ).toEqual([
      [1, "create", "ana", null, "P"],
      [2, "edit", "ana", "P", "NR"],
      [3, "restore", "ana", "NR", "P"],
    ]);
    expect(history[2]!.reason).toBe("the first reading was right (restores version 1)");
    // Another reviewer cannot restore ana's cell.
    expect(await refusal(restoreCode(db, "ben", row.id, 2, "mine now"))).toMatchObject({ kind: "not_found" });
  });

  it("keeps revisions append-only in the database itself", async () => {
    await expect(db.$executeRaw`UPDATE review_code_revisions SET reason = 'rewritten'`).rejects.toThrow(/append-only/);
    await expect(db.$executeRaw`DELETE FROM review_code_revisions`).rejects.toThrow(/append-only/);
  });

  it("lets exactly one of two simultaneous first saves of a cell win; the other gets the conflict", async () => {
    const results = await Promise.allSettled([
      saveCode(db, "ben", input({ field: "reset_or_retention", ledger: { ...input().ledger, code: "E" } })),
      saveCode(db, "ben", input({ field: "reset_or_retention", ledger: { ...input().ledger, code: "P" } })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ kind: "conflict", code: "edit_conflict" });
    expect(await db.reviewCodeRevision.count({ where: { code: { reviewerId: "ben", field: "reset_or_retention" } } })).toBe(1);
  });
});

describe("blind coding and consensus", () => {
  it("hides others' codes (the paper's too) from a reviewer until they have coded every field of the protocol", async () => {
    const before = await visibleCodes(db, { userId: "ana", seesAll: false }, webArena);
    expect(before.blind).toBe(true);
    expect(before.codes.every((c) => c.reviewerId === "ana")).toBe(true);
    await saveCode(db, "ana", input({ field: "reset_or_retention", ledger: { ...input().ledger, code: "E" } }));
    await saveCode(db, "ana", input({ field: "separate_evidence" }));
    const after = await visibleCodes(db, { userId: "ana", seesAll: false }, webArena);
    expect(after.blind).toBe(false);
    expect(new Set(after.codes.map((c) => c.reviewerId ?? "paper"))).toEqual(new Set(["ana", "ben", "paper"]));
    expect((await visibleCodes(db, { userId: "eve", seesAll: true }, webArena)).codes.length).toBe(after.codes.length);
  });

  it("reconciles a cell with a rationale, keeps the consensus's history, and Table 3 follows", async () => {
    const current = await db.reviewConsensus.findFirstOrThrow({ where: { protocolId: webArena, field: "open_work" } });
    expect([current.code, current.fromPaper, current.version]).toEqual(["NR", true, 1]);
    await setConsensus(db, "eve", {
      protocolId: webArena,
      field: "open_work",
      expectedVersion: 1,
      code: "P",
      rationale: "Both reviewers read Sec. 3.2 as a partial rule.",
      reason: "reconciled ana and ben",
    });
    expect(
      await refusal(
        setConsensus(db, "eve", {
          protocolId: webArena,
          field: "open_work",
          expectedVersion: 1,
          code: "E",
          rationale: "x",
          reason: "stale",
        }),
      ),
    ).toMatchObject({ kind: "conflict" });
    const revisions = await db.reviewConsensusRevision.findMany({ where: { consensusId: current.id }, orderBy: { version: "asc" } });
    expect(revisions.map((r) => [r.version, r.authorId, (r.next as { code: string }).code])).toEqual([
      [1, null, "NR"],
      [2, "eve", "P"],
    ]);
    const { protocols, matrix } = await consensusMatrix(db);
    expect(computeTable3(protocols, matrix).find((r) => r.field === "open_work")!.counts).toEqual({ E: 0, P: 2, NR: 2, NA: 2 });
  });
});
