// Completion arguments in PostgreSQL: one per protocol, every version an append-only revision
// (who, when, why). Evidence links are checked when saved (the item exists and the author may read
// it) and resolved when shown: a link to an experiment later cancelled stays, with its state.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { DomainError, notFound } from "../errors";
import { Prisma } from "../generated/prisma/client";
import type { ReviewCode, ReviewField } from "./codes";
import { argumentSchema, evidenceLinks, type ArgumentRevisionInput, type CompletionArgument, type EvidenceLink } from "./completion-schema";
import { argumentStatus, evidenceKey, type EvidenceState } from "./completion-status";
import { assertNotRetired } from "./protocols";
import { visibleCodes } from "./review-codes-store";
import type { Viewer } from "./views";
import { rowsOf } from "../db/rows";

/** A linked item as shown beside its link: what it is, where it lives, and its state now. */
export interface ResolvedEvidence extends EvidenceState {
  kind: EvidenceLink["kind"];
  id: string;
  label: string;
  href: string | null;
  /** An instant the label ends with (an unnamed experiment's creation), ISO 8601. */
  at?: string;
  /** An evaluation's audit: final runs of the scored runs (the evaluation page's denominator), every stored run, and its analysis units. */
  audit?: {
    runs: number;
    final: number;
    analysisUnits: number;
    /** Absent from share snapshots taken before it was counted. */ scored?: number;
  };
}

/**
 * What each link points at, as this viewer may see it. Experiments and evaluations are readable by
 * every signed-in role; a review code only if it is this protocol's and the blind rule shows it.
 */
export async function resolveEvidence(
  db: Db,
  viewer: Viewer,
  protocolId: string,
  links: EvidenceLink[],
  { shared = false } = {},
): Promise<Map<string, ResolvedEvidence>> {
  const ids = (kind: EvidenceLink["kind"]) => [...new Set(links.filter((l) => l.kind === kind).map((l) => l.id))];
  const resolved = new Map<string, ResolvedEvidence>();
  const experimentIds = ids("experiment");
  if (experimentIds.length) {
    for (const e of await db.experiment.findMany({
      where: { id: { in: experimentIds } },
      select: { id: true, name: true, state: true, createdAt: true },
    })) {
      resolved.set(evidenceKey({ kind: "experiment", id: e.id }), {
        kind: "experiment",
        id: e.id,
        exists: true,
        state: e.state,
        // An unnamed experiment is told by its time, shown in the reader's zone.
        label: e.name ?? "Unnamed experiment",
        ...(e.name ? {} : { at: e.createdAt.toISOString() }),
        href: `/experiments/${e.id}`,
      });
    }
  }
  const evaluationIds = ids("evaluation");
  if (evaluationIds.length) {
    const audits = rowsOf(
      z.object({ id: z.string(), name: z.string(), runs: z.number(), scored: z.number(), final: z.number(), units: z.number() }),
      await db.$queryRaw`
      SELECT e.id::text, e.name, count(r.id)::int AS runs, (count(r.id) FILTER (WHERE r.finality <> 'unscored'))::int AS scored,
             (count(r.id) FILTER (WHERE r.finality = 'final'))::int AS final, count(DISTINCT coalesce(r.analysis_unit, r.id))::int AS units
      FROM evaluations e LEFT JOIN evaluation_runs r ON r.evaluation_id = e.id
      WHERE e.id = ANY(${evaluationIds}::uuid[]) GROUP BY e.id, e.name`,
    );
    for (const a of audits) {
      resolved.set(evidenceKey({ kind: "evaluation", id: a.id }), {
        kind: "evaluation",
        id: a.id,
        exists: true,
        label: a.name,
        href: `/evaluations/${a.id}`,
        audit: { runs: a.runs, scored: a.scored, final: a.final, analysisUnits: a.units },
      });
    }
  }
  const codeIds = ids("review_code");
  if (codeIds.length) {
    const { codes } = await visibleCodes(db, viewer, protocolId);
    const emails = new Map(
      (
        await db.user.findMany({
          where: { id: { in: codes.map((c) => c.reviewerId).filter((r): r is string => r !== null) } },
          select: { id: true, email: true },
        })
      ).map((u) => [u.id, u.email]),
    );
    for (const c of codes.filter((c) => codeIds.includes(c.id))) {
      const who = c.fromPaper ? "the paper" : shared ? "a reviewer" : (emails.get(c.reviewerId!) ?? c.reviewerId!);
      resolved.set(evidenceKey({ kind: "review_code", id: c.id }), {
        kind: "review_code",
        id: c.id,
        exists: true,
        label: `${c.field}: ${c.ledger.code} (${who}, version ${c.ledger.version})`,
        href: `/protocols/${protocolId}#${c.field}`,
      });
    }
  }
  for (const link of links) {
    const key = evidenceKey(link);
    if (!resolved.has(key))
      resolved.set(key, {
        kind: link.kind,
        id: link.id,
        exists: false,
        label: "not available to you (missing, or hidden until you have coded this protocol)",
        href: null,
      });
  }
  return resolved;
}

function conflict(current: { version: number; argument: CompletionArgument } | null, yours: CompletionArgument): DomainError {
  return new DomainError(
    "conflict",
    "edit_conflict",
    current
      ? `expectedVersion: someone saved version ${current.version} of this argument since you opened it; nothing was overwritten. Compare both versions and save again from version ${current.version}.`
      : "expectedVersion: this argument has no saved version yet; save it as new (expectedVersion null).",
    "expectedVersion",
    { current, yours },
  );
}

/**
 * Saves a new version of a protocol's argument with its reason. Every evidence link must point at
 * something that exists and the author may read (400 naming the link); a save from an older
 * version than the stored one is refused with both versions (409). Nothing partial is written.
 */
export async function saveArgument(db: Db, actor: Viewer, protocolId: string, input: ArgumentRevisionInput): Promise<{ version: number }> {
  const protocol = await db.reviewProtocol.findUnique({ where: { id: protocolId }, select: { name: true, retiredAt: true } });
  if (!protocol) throw notFound(`protocol ${protocolId}`);
  assertNotRetired(protocol);
  const links = evidenceLinks(input.argument);
  const resolved = await resolveEvidence(
    db,
    actor,
    protocolId,
    links.map((l) => l.link),
  );
  for (const { link, path } of links) {
    if (!resolved.get(evidenceKey(link))!.exists) {
      const what =
        link.kind === "review_code"
          ? `review code ${link.id} is not one of ${protocol.name}'s codes that you can read`
          : `${link.kind} ${link.id} does not exist or you cannot read it`;
      throw new DomainError("invalid", "invalid_evidence", `${path}.id: ${what}`, `${path}.id`);
    }
  }
  const content = input.argument as unknown as Prisma.InputJsonValue;
  try {
    return await db.$transaction(async (tx) => {
      const [row] = rowsOf(
        z.object({ id: z.string() }),
        await tx.$queryRaw`SELECT id FROM completion_arguments WHERE protocol_id = ${protocolId}::uuid FOR UPDATE`,
      );
      const current = row ? await tx.completionArgument.findUniqueOrThrow({ where: { id: row.id } }) : null;
      if ((current?.version ?? null) !== input.expectedVersion)
        throw conflict(current && { version: current.version, argument: current.content as unknown as CompletionArgument }, input.argument);
      const saved = current
        ? await tx.completionArgument.update({
            where: { id: current.id },
            data: { content, version: current.version + 1, updatedById: actor.userId, updatedAt: new Date() },
          })
        : await tx.completionArgument.create({ data: { protocolId, content, version: 1, updatedById: actor.userId } });
      await tx.completionArgumentRevision.create({
        data: { argumentId: saved.id, version: saved.version, authorId: actor.userId, reason: input.reason, content },
      });
      return { version: saved.version };
    });
  } catch (error) {
    // Two first saves at once: the second meets the first's row, a conflict like any other.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const current = await db.completionArgument.findUnique({ where: { protocolId } });
      throw conflict(current && { version: current.version, argument: current.content as unknown as CompletionArgument }, input.argument);
    }
    throw error;
  }
}

/**
 * Who reads a shared argument: the links the editor chose are shown (a cited code too), but
 * `shared` names no reviewer or author and links nowhere inside the instance.
 */
export const SHARED_READER: Viewer = { userId: "", seesAll: true };

/** The argument page, the API's GET and the exports: the current version, every revision, the linked items and the status. */
export async function argumentView(db: Db, viewer: Viewer, protocolId: string, { shared = false } = {}) {
  const protocol = await db.reviewProtocol.findUnique({
    where: { id: protocolId },
    include: { consensus: true, completion: { include: { revisions: { orderBy: { version: "asc" } } } } },
  });
  if (!protocol) return null;
  const stored = protocol.completion;
  // Stored content passed this schema when written; parsing again fills defaults of older shapes.
  const argument = stored ? argumentSchema.parse(stored.content) : null;
  const consensus = Object.fromEntries(protocol.consensus.map((c) => [c.field, c.code])) as Partial<Record<ReviewField, ReviewCode>>;
  const resolved = await resolveEvidence(db, viewer, protocolId, argument ? evidenceLinks(argument).map((l) => l.link) : [], { shared });
  const evidence = shared ? new Map([...resolved].map(([k, v]) => [k, { ...v, href: null }])) : resolved;
  const authors = new Map(
    (
      await db.user.findMany({
        where: { id: { in: [...new Set((stored?.revisions ?? []).map((r) => r.authorId).filter((a): a is string => a !== null))] } },
        select: { id: true, email: true },
      })
    ).map((u) => [u.id, u.email]),
  );
  return {
    protocol: {
      id: protocol.id,
      name: protocol.name,
      fromPaper: protocol.fromPaper,
      retired: protocol.retiredAt !== null,
      benchmarkVersion: protocol.benchmarkVersion,
      scope: protocol.scope,
    },
    consensus,
    current:
      stored && argument
        ? {
            version: stored.version,
            updatedAt: stored.updatedAt.toISOString(),
            updatedBy: stored.updatedById && !shared ? (authors.get(stored.updatedById) ?? stored.updatedById) : null,
            argument,
          }
        : null,
    revisions: (stored?.revisions ?? []).map((r) => ({
      version: r.version,
      author: r.authorId && !shared ? (authors.get(r.authorId) ?? r.authorId) : null,
      reason: r.reason,
      createdAt: r.createdAt.toISOString(),
      argument: r.content as unknown as CompletionArgument,
    })),
    evidence: Object.fromEntries(evidence),
    status: argument ? argumentStatus(argument, consensus, evidence) : null,
  };
}
export type ArgumentView = NonNullable<Awaited<ReturnType<typeof argumentView>>>;
