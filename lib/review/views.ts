// What the review pages and routes show, as one viewer may see it (blind coding, store.ts).
import type { Db } from "../db/prisma";
import type { ReviewProtocol } from "../generated/prisma/client";
import { fieldAgreement, type FieldAgreement } from "./agreement";
import { REVIEW_FIELDS, type ReviewCode, type ReviewField } from "./codes";
import { applyBlindRule, CODE_ORDER, consensusMatrix, visibleCodes } from "./review-codes-store";
import { computeTable3, type ConsensusMatrix } from "./table3";

export interface Viewer {
  userId: string;
  /** Editors and admins reconcile: they see every code. */
  seesAll: boolean;
}

/** The paper's codes as a rater in the agreement (no account has this id: user ids are not this word). */
export const PAPER_RATER = "the paper";

/** What lists and pages show of a protocol: the paper's are marked as reference, retired ones as retired. */
const protocolSummary = (p: ReviewProtocol) => ({
  id: p.id,
  name: p.name,
  citation: p.citation,
  link: p.link,
  fromPaper: p.fromPaper,
  benchmarkVersion: p.benchmarkVersion,
  scope: p.scope,
  sources: p.sources,
  retired: p.retiredAt !== null,
  retiredAt: p.retiredAt?.toISOString() ?? null,
  version: p.version,
});

/** The matrix page: consensus (or one reviewer's codes), Table 3 live, and agreement per field. */
export async function matrixView(
  db: Db,
  viewer: Viewer,
  show: "consensus" | "paper" | { reviewerId: string },
  { paperAsRater = false } = {},
) {
  // One query for every protocol's codes; the blind rule is then applied protocol by protocol.
  const protocols = await db.reviewProtocol.findMany({
    orderBy: [{ position: "asc" }, { name: "asc" }],
    include: { codes: { orderBy: CODE_ORDER } },
  });
  const { matrix: consensus, reviewers: consensusReviewers } = await consensusMatrix(db);
  const visible = protocols.map((p) => ({ protocol: p, ...applyBlindRule(p.codes, viewer) }));
  const matrix: ConsensusMatrix =
    show === "consensus"
      ? consensus
      : Object.fromEntries(
          visible.map(({ protocol, codes }) => [
            protocol.name,
            Object.fromEntries(
              codes.filter((c) => (show === "paper" ? c.fromPaper : c.reviewerId === show.reviewerId)).map((c) => [c.field, c.ledger.code]),
            ),
          ]),
        );
  // Table 3 sets the consensus beside the paper's totals: over the paper's ten only.
  const reference = protocols.filter((p) => p.fromPaper).map((p) => p.name);
  // Agreement among the human reviewers (and the paper, as one more rater, when asked), over the
  // protocols this viewer may see everyone's codes for.
  const agreement = Object.fromEntries(
    REVIEW_FIELDS.map((field) => [
      field,
      fieldAgreement(
        visible
          .filter((v) => !v.blind)
          .flatMap(({ protocol, codes }) =>
            codes
              .filter((c) => c.field === field && (c.reviewerId !== null || (paperAsRater && c.fromPaper)))
              .map((c) => ({ item: protocol.name, rater: c.reviewerId ?? PAPER_RATER, code: c.ledger.code })),
          ),
      ),
    ]),
  ) as Record<ReviewField, FieldAgreement>;
  const reviewers = [...new Set(visible.flatMap((v) => v.codes.map((c) => c.reviewerId)).filter((r): r is string => r !== null))];
  const users = await db.user.findMany({ where: { id: { in: reviewers } }, select: { id: true, email: true } });
  return {
    protocols: protocols.map(protocolSummary),
    matrix,
    /** How many reviewers coded each cell: the matrix marks a consensus resting on one. */
    consensusReviewers,
    table3: computeTable3(reference, consensus, consensusReviewers),
    agreement,
    reviewers: users,
  };
}

/** One protocol: each field's codes the viewer may see, the consensus, and agreement on the cell. */
export async function protocolView(db: Db, viewer: Viewer, protocolId: string) {
  const protocol = await db.reviewProtocol.findUnique({ where: { id: protocolId }, include: { consensus: true } });
  if (!protocol) return null;
  const [{ codes, blind }, counted] = await Promise.all([
    visibleCodes(db, viewer, protocolId),
    // Counted over every code, not the ones this viewer sees: one count for every role, shown while blind too.
    db.reviewCode.groupBy({ by: ["field", "fromPaper"], where: { protocolId }, _count: { _all: true } }),
  ]);
  const codedBy = (field: ReviewField, paper: boolean) => counted.find((c) => c.field === field && c.fromPaper === paper)?._count._all ?? 0;
  const histories = await db.reviewCodeRevision.findMany({
    where: { codeId: { in: codes.map((c) => c.id) } },
    orderBy: [{ codeId: "asc" }, { version: "asc" }],
  });
  const consensusHistory = await db.reviewConsensusRevision.findMany({
    where: { consensusId: { in: protocol.consensus.map((c) => c.id) } },
    orderBy: { version: "asc" },
  });
  // Reviewers and revision authors by email, in one lookup (a revision's author may have coded nothing the viewer sees).
  const ids = [...new Set([...codes.map((c) => c.reviewerId), ...[...histories, ...consensusHistory].map((h) => h.authorId)])].filter(
    (id): id is string => id !== null,
  );
  const names = new Map(
    (await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]),
  );
  const authorOf = (h: { authorId: string | null }) => (h.authorId === null ? null : (names.get(h.authorId) ?? "a deleted account"));
  const fields = REVIEW_FIELDS.map((field) => {
    const fieldCodes = codes.filter((c) => c.field === field);
    const consensus = protocol.consensus.find((c) => c.field === field) ?? null;
    const human = fieldCodes.filter((c) => c.reviewerId !== null).map((c) => c.ledger.code);
    const mine = fieldCodes.find((c) => c.reviewerId === viewer.userId) ?? null;
    return {
      field,
      mine,
      /** The viewer's own cell's revisions, oldest first. */
      history: mine ? histories.filter((h) => h.codeId === mine.id).map((h) => ({ ...h, author: authorOf(h) })) : [],
      /** How many human reviewers have coded this cell, whoever asks (a count, so shown while blind too). */
      coders: codedBy(field, false),
      /** How many reviewers' codes the cell has, the paper's counted as one: a consensus resting on fewer than two is marked. */
      reviewers: codedBy(field, false) + codedBy(field, true),
      others: blind
        ? []
        : fieldCodes
            .filter((c) => c.reviewerId !== viewer.userId)
            .map((c) => ({ ...c, reviewer: c.fromPaper ? "the paper" : (names.get(c.reviewerId!) ?? c.reviewerId!) })),
      /** Whether the human reviewers' codes of this cell agree; null until two have coded it (or while blind). */
      agree: blind || human.length < 2 ? null : new Set(human).size === 1,
      consensus: consensus && {
        id: consensus.id,
        code: consensus.code as ReviewCode,
        rationale: consensus.rationale,
        version: consensus.version,
        fromPaper: consensus.fromPaper,
      },
      consensusHistory: consensus
        ? consensusHistory.filter((h) => h.consensusId === consensus.id).map((h) => ({ ...h, author: authorOf(h) }))
        : [],
    };
  });
  const revisions = await db.reviewProtocolRevision.findMany({ where: { protocolId }, orderBy: { version: "asc" } });
  return { protocol: protocolSummary(protocol), blind, fields, revisions };
}
