// Review codes, their append-only revisions, the consensus, and the paper's reference data, in
// PostgreSQL. Permission checks are the caller's (lib/auth/guard.ts); ownership is checked here.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { conflict, DomainError, notFound } from "../errors";
import { Prisma, type ReviewCode } from "../generated/prisma/client";
import { REVIEW_FIELDS, type ReviewCode as Code, type ReviewField } from "./codes";
import { assertNotRetired } from "./protocols";
import { PAPER_SOURCES_READ_ON, REFERENCE_PROTOCOLS, TABLE_A1, TABLE_A2 } from "./reference-data";
import type { ConsensusInput, Ledger, SaveCodeInput } from "./review-schemas";
import { rowsOf } from "../db/rows";
import type { CellReviewers } from "./table3";

type Tx = Prisma.TransactionClient;

/** A cell's code and ledger as one JSON value: what revisions store and conflicts show. */
export interface LedgerSnapshot extends Omit<Ledger, "citations"> {
  citations: string[];
  version: number;
}

const snapshot = (row: ReviewCode): LedgerSnapshot => ({
  code: row.code as Code,
  sourceLocation: row.sourceLocation,
  ...(row.basis ? { basis: row.basis } : {}),
  citations: row.citations,
  sourcesReadOn: row.sourcesReadOn.toISOString().slice(0, 10),
  version: row.version,
});

const ledgerColumns = (ledger: Ledger) => ({
  code: ledger.code,
  sourceLocation: ledger.sourceLocation,
  basis: ledger.basis ?? null,
  citations: ledger.citations,
  sourcesReadOn: new Date(`${ledger.sourcesReadOn}T00:00:00Z`),
});

function editConflict(current: LedgerSnapshot | null, yours: Ledger): DomainError {
  return conflict(
    "edit_conflict",
    current
      ? `expectedVersion: someone saved version ${current.version} of this cell since you opened it; nothing was overwritten. Compare both versions and save again from version ${current.version}.`
      : "expectedVersion: this cell has no saved code yet; save it as new (expectedVersion null).",
    "expectedVersion",
    { current, yours },
  );
}

/**
 * Saves the actor's own code for a cell, as a new version with a revision (who, when, before,
 * after, why). A save that started from an older version than the stored one is refused with both
 * versions (optimistic concurrency): nothing is ever overwritten silently.
 */
export async function saveCode(db: Db, actorId: string, input: SaveCodeInput): Promise<LedgerSnapshot> {
  const protocol = await db.reviewProtocol.findUnique({ where: { id: input.protocolId }, select: { name: true, retiredAt: true } });
  if (!protocol) throw notFound(`protocolId: protocol ${input.protocolId}`, "protocolId");
  assertNotRetired(protocol);
  try {
    return await db.$transaction(async (tx) => {
      const [existing] = rowsOf(
        z.object({ id: z.string() }),
        await tx.$queryRaw`
        SELECT id FROM review_codes WHERE protocol_id = ${input.protocolId}::uuid AND field = ${input.field} AND reviewer_id = ${actorId} FOR UPDATE`,
      );
      const current = existing ? await tx.reviewCode.findUniqueOrThrow({ where: { id: existing.id } }) : null;
      if ((current?.version ?? null) !== input.expectedVersion) throw editConflict(current ? snapshot(current) : null, input.ledger);
      const saved = current
        ? await tx.reviewCode.update({
            where: { id: current.id },
            data: { ...ledgerColumns(input.ledger), version: current.version + 1, updatedAt: new Date() },
          })
        : await tx.reviewCode.create({
            data: { protocolId: input.protocolId, field: input.field, reviewerId: actorId, ...ledgerColumns(input.ledger), version: 1 },
          });
      await appendRevision(tx, saved, current ? "edit" : "create", actorId, input.reason, current ? snapshot(current) : null);
      return snapshot(saved);
    });
  } catch (error) {
    // Two first saves of one cell at once: the second meets the first's row, a conflict like any other.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const current = await db.reviewCode.findFirst({ where: { protocolId: input.protocolId, field: input.field, reviewerId: actorId } });
      throw editConflict(current ? snapshot(current) : null, input.ledger);
    }
    throw error;
  }
}

async function appendRevision(
  tx: Tx,
  row: ReviewCode,
  kind: "create" | "edit" | "restore",
  authorId: string | null,
  reason: string,
  previous: LedgerSnapshot | null,
) {
  await tx.reviewCodeRevision.create({
    data: {
      codeId: row.id,
      version: row.version,
      kind,
      authorId,
      reason,
      previous: previous ? (previous as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
      next: snapshot(row) as unknown as Prisma.InputJsonValue,
    },
  });
}

/** Restores a past version of the actor's own cell, as a new version (history is never rewritten). */
export async function restoreCode(db: Db, actorId: string, codeId: string, version: number, reason: string): Promise<LedgerSnapshot> {
  return db.$transaction(async (tx) => {
    const [owned] = rowsOf(
      z.object({ id: z.string() }),
      await tx.$queryRaw`SELECT id FROM review_codes WHERE id = ${codeId}::uuid AND reviewer_id = ${actorId} FOR UPDATE`,
    );
    if (!owned) throw new DomainError("not_found", "not_found", `review code ${codeId} not found among your codes`);
    const past = await tx.reviewCodeRevision.findUnique({ where: { codeId_version: { codeId, version } } });
    if (!past) throw new DomainError("not_found", "not_found", `version: cell ${codeId} has no version ${version}`, "version");
    const current = await tx.reviewCode.findUniqueOrThrow({ where: { id: codeId } });
    const { version: _restoredFrom, ...ledger } = past.next as unknown as LedgerSnapshot;
    const saved = await tx.reviewCode.update({
      where: { id: codeId },
      data: { ...ledgerColumns({ ...ledger, citations: ledger.citations }), version: current.version + 1, updatedAt: new Date() },
    });
    await appendRevision(tx, saved, "restore", actorId, `${reason} (restores version ${version})`, snapshot(current));
    return snapshot(saved);
  });
}

export async function codeHistory(db: Db, codeId: string) {
  return db.reviewCodeRevision.findMany({ where: { codeId }, orderBy: { version: "asc" } });
}

export interface VisibleCode {
  id: string;
  field: ReviewField;
  reviewerId: string | null;
  fromPaper: boolean;
  ledger: LedgerSnapshot;
}

/**
 * A protocol's codes as one viewer may see them. Coding is blind: a reviewer sees only their own
 * codes for a protocol until they have coded every field of it; then everyone's, the paper's
 * included. Those who reconcile (`seesAll`) see everything.
 */
/** A protocol's codes by field, the paper's first, then by reviewer. */
export const CODE_ORDER = [
  { field: "asc" },
  { fromPaper: "desc" },
  { reviewerId: "asc" },
] satisfies Prisma.ReviewCodeOrderByWithRelationInput[];

export async function visibleCodes(
  db: Db,
  viewer: { userId: string; seesAll: boolean },
  protocolId: string,
): Promise<{ codes: VisibleCode[]; blind: boolean }> {
  const rows = await db.reviewCode.findMany({ where: { protocolId }, orderBy: CODE_ORDER });
  return applyBlindRule(rows, viewer);
}

/** The blind rule on one protocol's stored codes (see visibleCodes). */
export function applyBlindRule(rows: ReviewCode[], viewer: { userId: string; seesAll: boolean }): { codes: VisibleCode[]; blind: boolean } {
  const ownFields = new Set(rows.filter((r) => r.reviewerId === viewer.userId).map((r) => r.field));
  const blind = !viewer.seesAll && REVIEW_FIELDS.some((f) => !ownFields.has(f));
  const shown = blind ? rows.filter((r) => r.reviewerId === viewer.userId) : rows;
  return {
    codes: shown.map((r) => ({
      id: r.id,
      field: r.field as ReviewField,
      reviewerId: r.reviewerId,
      fromPaper: r.fromPaper,
      ledger: snapshot(r),
    })),
    blind,
  };
}

/** Reconciles a cell to a consensus code with its rationale; the consensus keeps its own history. */
export async function setConsensus(db: Db, actorId: string, input: ConsensusInput) {
  const protocol = await db.reviewProtocol.findUnique({ where: { id: input.protocolId }, select: { name: true, retiredAt: true } });
  if (!protocol) throw notFound(`protocolId: protocol ${input.protocolId}`, "protocolId");
  assertNotRetired(protocol);
  return db.$transaction(async (tx) => {
    const [row] = rowsOf(
      z.object({ id: z.string() }),
      await tx.$queryRaw`
      SELECT id FROM review_consensus WHERE protocol_id = ${input.protocolId}::uuid AND field = ${input.field} FOR UPDATE`,
    );
    const current = row ? await tx.reviewConsensus.findUniqueOrThrow({ where: { id: row.id } }) : null;
    if ((current?.version ?? null) !== input.expectedVersion) {
      throw conflict(
        "edit_conflict",
        `expectedVersion: the consensus is at version ${current?.version ?? "none"}; nothing was overwritten`,
        "expectedVersion",
        {
          current: current && { code: current.code, rationale: current.rationale, version: current.version },
          yours: { code: input.code, rationale: input.rationale },
        },
      );
    }
    const data = { code: input.code, rationale: input.rationale, fromPaper: false, updatedById: actorId, updatedAt: new Date() };
    const saved = current
      ? await tx.reviewConsensus.update({ where: { id: current.id }, data: { ...data, version: current.version + 1 } })
      : await tx.reviewConsensus.create({ data: { ...data, protocolId: input.protocolId, field: input.field, version: 1 } });
    await tx.reviewConsensusRevision.create({
      data: {
        consensusId: saved.id,
        version: saved.version,
        authorId: actorId,
        reason: input.reason,
        previous: current ? { code: current.code, rationale: current.rationale, fromPaper: current.fromPaper } : Prisma.DbNull,
        next: { code: saved.code, rationale: saved.rationale, fromPaper: false },
      },
    });
    return saved;
  });
}

const PAPER_REASON = "loaded from the paper (Table A.1 codes, Table A.2 ledger rows)";

/**
 * Loads the paper's reference data once: its ten protocols, its codes for the six Table A.1 gives
 * (with the Table A.2 ledger where the paper prints one), and those codes as the initial consensus.
 * Idempotent; cells the paper does not code stay uncoded.
 */
export async function loadPaperReference(db: Db): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${0x626c_7276})`; // "blrv": one loader at a time
      if ((await tx.reviewProtocol.count({ where: { fromPaper: true } })) > 0) return;
      for (const [position, p] of REFERENCE_PROTOCOLS.entries()) {
        const protocol = await tx.reviewProtocol.create({
          data: { name: p.name, citation: p.citation, referenceNumber: p.referenceNumber, fromPaper: true, position },
        });
        const codes = TABLE_A1[p.name];
        if (!codes) continue;
        for (const field of REVIEW_FIELDS) {
          const printed = TABLE_A2.find((row) => row.protocol === p.name && row.field === field);
          const ledger: Ledger = printed
            ? {
                code: codes[field],
                sourceLocation: printed.sourceLocation,
                basis: printed.basis,
                citations: printed.citations.map(String),
                sourcesReadOn: PAPER_SOURCES_READ_ON,
              }
            : {
                code: codes[field],
                sourceLocation: "Paper Table A.1",
                basis:
                  "Table A.1 prints this code; the paper gives no ledger row for this cell (its Table A.2 covers WebArena and WorkArena).",
                citations: [String(p.referenceNumber)],
                sourcesReadOn: PAPER_SOURCES_READ_ON,
              };
          const row = await tx.reviewCode.create({
            data: { protocolId: protocol.id, field, reviewerId: null, fromPaper: true, ...ledgerColumns(ledger), version: 1 },
          });
          await appendRevision(tx, row, "create", null, PAPER_REASON, null);
          const consensus = await tx.reviewConsensus.create({
            data: {
              protocolId: protocol.id,
              field,
              code: codes[field],
              rationale: "The paper's code (one reviewer coded everything, its stated limitation).",
              fromPaper: true,
              version: 1,
            },
          });
          await tx.reviewConsensusRevision.create({
            data: {
              consensusId: consensus.id,
              version: 1,
              authorId: null,
              reason: PAPER_REASON,
              next: { code: consensus.code, rationale: consensus.rationale, fromPaper: true },
            },
          });
        }
      }
      // About 250 statements, once per database: Prisma's 5 s default expired on a loaded machine.
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

/**
 * The consensus matrix: protocol name → field → code, over every protocol (retired ones too), and
 * how many reviewers coded each cell (one stored code per reviewer and cell; the paper's is one).
 * `reference` names the paper's ten: Table 3 compares the paper's totals over those alone.
 */
export async function consensusMatrix(db: Db): Promise<{
  protocols: string[];
  reference: string[];
  matrix: Record<string, Partial<Record<ReviewField, Code>>>;
  reviewers: CellReviewers;
}> {
  const [protocols, coded] = await Promise.all([
    db.reviewProtocol.findMany({ orderBy: [{ position: "asc" }, { name: "asc" }], include: { consensus: true } }),
    db.reviewCode.groupBy({ by: ["protocolId", "field"], _count: { _all: true } }),
  ]);
  const reviewers: CellReviewers = Object.fromEntries(protocols.map((p) => [p.name, {}]));
  const names = new Map(protocols.map((p) => [p.id, p.name]));
  for (const cell of coded) {
    const name = names.get(cell.protocolId);
    if (name) reviewers[name]![cell.field as ReviewField] = cell._count._all;
  }
  return {
    protocols: protocols.map((p) => p.name),
    reference: protocols.filter((p) => p.fromPaper).map((p) => p.name),
    matrix: Object.fromEntries(protocols.map((p) => [p.name, Object.fromEntries(p.consensus.map((c) => [c.field, c.code as Code]))])),
    reviewers,
  };
}

/** Every cell's current code and ledger with its consensus: the rows of the CSV and JSON exports. */
export async function reviewLedger(db: Db) {
  const codes = await db.reviewCode.findMany({
    include: { protocol: { include: { consensus: true } } },
    orderBy: [{ protocol: { position: "asc" } }, { field: "asc" }, { fromPaper: "desc" }, { reviewerId: "asc" }],
  });
  const reviewers = new Map((await db.user.findMany({ select: { id: true, email: true } })).map((u) => [u.id, u.email]));
  // How many reviewers coded each cell: the rows are every code, so they count them without another query.
  const perCell = new Map<string, number>();
  for (const c of codes) perCell.set(`${c.protocolId}/${c.field}`, (perCell.get(`${c.protocolId}/${c.field}`) ?? 0) + 1);
  const reviewersOf = (protocolId: string, field: string) => perCell.get(`${protocolId}/${field}`) ?? 0;
  return codes.map((c) => ({
    protocol: c.protocol.name,
    field: c.field,
    reviewer: c.fromPaper ? "paper" : (reviewers.get(c.reviewerId!) ?? c.reviewerId!),
    code: c.code,
    sourceLocation: c.sourceLocation,
    basis: c.basis ?? "",
    citations: c.citations.join("; "),
    sourcesReadOn: c.sourcesReadOn.toISOString().slice(0, 10),
    version: c.version,
    consensus: c.protocol.consensus.find((k) => k.field === c.field)?.code ?? "",
    consensusReviewers: reviewersOf(c.protocolId, c.field),
  }));
}
