import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { DomainError } from "../errors";
import { parseInput } from "../http/input";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { agreementCaveat } from "./agreement";
import { createProtocol, updateProtocol } from "./protocols";
import { createProtocolSchema, saveCodeSchema, updateProtocolSchema } from "./review-schemas";
import { consensusMatrix, loadPaperReference, saveCode, setConsensus } from "./review-codes-store";
import { matrixView, protocolView } from "./views";

// Protocols as data on a real PostgreSQL: a team's own protocol beside the paper's ten, with every
// capability the ten have (codes, blind coding, consensus, agreement, history), rename, retire.
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  for (const id of ["ana", "ben", "eve"])
    await db.user.create({ data: { id, email: `${id}@example.test`, name: id, role: id === "eve" ? "editor" : "reviewer" } });
  await loadPaperReference(db);
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
const create = (body: object) => createProtocol(db, "eve", parseInput(createProtocolSchema, body, "body"));
const update = (id: string, body: object) => updateProtocol(db, "eve", id, parseInput(updateProtocolSchema, body, "body"));
const ledger = (code: string) => ({
  code,
  sourceLocation: "README, Evaluation",
  ...(code === "E" || code === "P" ? { basis: "the README says so" } : {}),
  citations: [],
  sourcesReadOn: "2026-11-30",
});
const code = (reviewer: string, protocolId: string, field: string, c: string) =>
  saveCode(
    db,
    reviewer,
    parseInput(saveCodeSchema, { protocolId, field, expectedVersion: null, ledger: ledger(c), reason: "first coding" }, "body"),
  );

describe("adding a protocol", () => {
  it("adds it after the paper's ten, with its revision, and lists it in the matrix (not in Table 3)", async () => {
    const added = await create({
      name: "OurBench",
      benchmarkVersion: "v2.1",
      scope: "Web tasks on our staging cluster",
      sources: ["https://example.test/ourbench"],
    });
    expect([added.fromPaper, added.position, added.version, added.sources]).toEqual([false, 10, 1, ["https://example.test/ourbench"]]);
    const history = await db.reviewProtocolRevision.findMany({ where: { protocolId: added.id } });
    expect(history.map((h) => [h.version, h.kind, h.authorId])).toEqual([[1, "create", "eve"]]);
    const view = await matrixView(db, { userId: "eve", seesAll: true }, "consensus");
    expect(view.protocols.map((p) => p.name)).toHaveLength(11);
    expect(view.protocols.at(-1)).toMatchObject({ name: "OurBench", fromPaper: false, retired: false, benchmarkVersion: "v2.1" });
    expect(view.protocols.filter((p) => p.fromPaper)).toHaveLength(10);
    // Table 3 still sets the paper's ten beside the paper's totals: the new protocol's uncoded cells do not count.
    expect(view.table3.find((r) => r.field === "open_work")!.uncoded).toBe(4);
  });

  it("refuses bad input naming the field and its limit, and a taken name, writing nothing", async () => {
    const bad = (body: object) => {
      try {
        parseInput(createProtocolSchema, body, "body");
        return null;
      } catch (error) {
        return [(error as DomainError).field, (error as DomainError).message];
      }
    };
    expect(bad({})).toEqual(["name", expect.stringContaining("name is required")]);
    expect(bad({ name: "x".repeat(201) })?.[1]).toContain("at most 200 characters");
    expect(bad({ name: "A", scope: "s".repeat(4001) })?.[1]).toContain("at most 4000 characters");
    expect(bad({ name: "A", sources: ["ftp://example.test"] })).toEqual(["sources.0", expect.stringContaining("http(s) URL")]);
    const before = await db.reviewProtocol.count();
    expect(await refusal(create({ name: "WebArena" }))).toMatchObject({ kind: "conflict", code: "name_taken", field: "name" });
    expect(await db.reviewProtocol.count()).toBe(before);
  });
});

describe("a team's protocol has every capability the paper's have", () => {
  it("codes blind, agreement, consensus and the consensus matrix", async () => {
    const { id } = await create({ name: "BlindBench" });
    await code("ana", id, "open_work", "P");
    // Ben has coded nothing: he sees only his own (none), blind.
    expect((await protocolView(db, { userId: "ben", seesAll: false }, id))!.blind).toBe(true);
    await code("ana", id, "reset_or_retention", "E");
    await code("ana", id, "separate_evidence", "P");
    for (const [field, c] of [
      ["open_work", "P"],
      ["reset_or_retention", "E"],
      ["separate_evidence", "NR"],
    ] as const)
      await code("ben", id, field, c);
    const anaView = (await protocolView(db, { userId: "ana", seesAll: false }, id))!;
    expect(anaView.blind).toBe(false);
    expect(anaView.fields.map((f) => f.agree)).toEqual([true, true, false]);
    const agreement = (await matrixView(db, { userId: "eve", seesAll: true }, "consensus")).agreement;
    expect(agreement.separate_evidence.disagreements).toContain("BlindBench");
    await setConsensus(db, "eve", {
      protocolId: id,
      field: "separate_evidence",
      expectedVersion: null,
      code: "P",
      rationale: "the README names a cleanup but no check",
      reason: "reconciled",
    });
    expect((await consensusMatrix(db)).matrix.BlindBench).toEqual({ separate_evidence: "P" });
  });
});

describe("the paper as a rater", () => {
  it("counts the paper's published codes as one more rater when asked, with the caveat on a kappa from one protocol", async () => {
    const webArena = (await db.reviewProtocol.findUniqueOrThrow({ where: { name: "WebArena" } })).id;
    for (const reviewer of ["ana", "ben"])
      for (const [field, c] of [
        ["open_work", "NR"],
        ["reset_or_retention", "E"],
        ["separate_evidence", reviewer === "ana" ? "P" : "E"],
      ] as const)
        await code(reviewer, webArena, field, c);
    const without = (await matrixView(db, { userId: "eve", seesAll: true }, "consensus")).agreement.separate_evidence;
    expect(without.raters).not.toContain("the paper");
    const withPaper = (await matrixView(db, { userId: "eve", seesAll: true }, "consensus", { paperAsRater: true })).agreement
      .separate_evidence;
    expect(withPaper.raters).toContain("the paper");
    // Only WebArena is coded by ana, ben and the paper: the statistic rests on one protocol.
    expect([withPaper.items, withPaper.percent]).toEqual([1, { agreed: 0, of: 1 }]);
    expect(withPaper.disagreements).toEqual(["WebArena"]);
    expect(agreementCaveat(withPaper) ?? "kappa undefined").toMatch(/rests on 1 protocol|kappa undefined/);
  });
});

describe("renaming and retiring", () => {
  it("renames as a new version, refuses a stale edit with both versions, and keeps the codes when retired", async () => {
    const { id } = await create({ name: "OldName" });
    await code("ana", id, "open_work", "NR");
    const renamed = await update(id, { name: "NewName", expectedVersion: 1, reason: "the benchmark was renamed" });
    expect([renamed.name, renamed.version]).toEqual(["NewName", 2]);
    expect(await refusal(update(id, { scope: "stale", expectedVersion: 1, reason: "from an old tab" }))).toMatchObject({
      kind: "conflict",
      code: "edit_conflict",
      details: { current: { name: "NewName", version: 2 }, yours: { scope: "stale" } },
    });
    const retired = await update(id, { retired: true, expectedVersion: 2, reason: "superseded by v3" });
    expect(retired.retiredAt).not.toBeNull();
    // The record stays, codes and all, and takes no new codes.
    expect(await db.reviewCode.count({ where: { protocolId: id } })).toBe(1);
    expect((await matrixView(db, { userId: "eve", seesAll: true }, "consensus")).protocols.find((p) => p.id === id)).toMatchObject({
      name: "NewName",
      retired: true,
    });
    expect(await refusal(code("ben", id, "open_work", "NR"))).toMatchObject({ kind: "conflict", code: "retired" });
    const reinstated = await update(id, { retired: false, expectedVersion: 3, reason: "still in use" });
    expect(reinstated.retiredAt).toBeNull();
    const history = await db.reviewProtocolRevision.findMany({ where: { protocolId: id }, orderBy: { version: "asc" } });
    expect(history.map((h) => [h.version, h.kind, h.reason])).toEqual([
      [1, "create", "added"],
      [2, "edit", "the benchmark was renamed"],
      [3, "retire", "superseded by v3"],
      [4, "reinstate", "still in use"],
    ]);
    // Nothing is deleted: the database refuses to change or delete a revision.
    await expect(db.$executeRaw`DELETE FROM review_protocol_revisions WHERE protocol_id = ${id}::uuid`).rejects.toThrow(/append-only/);
  });

  it("leaves the paper's reference protocols as they are", async () => {
    const webArena = await db.reviewProtocol.findUniqueOrThrow({ where: { name: "WebArena" } });
    expect(await refusal(update(webArena.id, { name: "Renamed", expectedVersion: 1, reason: "no" }))).toMatchObject({
      kind: "conflict",
      code: "reference_protocol",
    });
    expect(await refusal(update("00000000-0000-4000-8000-000000000000", { name: "X", expectedVersion: 1, reason: "no" }))).toMatchObject({
      kind: "not_found",
    });
  });
});
