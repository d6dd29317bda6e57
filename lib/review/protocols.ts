// Protocols as data (docs/review.md, Your own protocols): a team adds its own protocols beside the paper's ten, renames,
// edits and retires them. Every change appends a revision; nothing is deleted. Permission checks
// are the caller's (lib/auth/guard.ts).
import { z } from "zod";
import type { Db } from "../db/prisma";
import { conflict, notFound } from "../errors";
import { Prisma, type ReviewProtocol } from "../generated/prisma/client";
import type { CreateProtocolInput, UpdateProtocolInput } from "./review-schemas";
import { rowsOf } from "../db/rows";

/** A protocol's own description as revisions store it. */
export const protocolSnapshot = (p: ReviewProtocol) => ({
  name: p.name,
  benchmarkVersion: p.benchmarkVersion,
  scope: p.scope,
  sources: p.sources,
  retired: p.retiredAt !== null,
  version: p.version,
});

const nameTaken = (name: string) =>
  conflict("name_taken", `name: a protocol named "${name}" already exists (retired ones keep their names)`, "name");

const isUniqueViolation = (error: unknown) => error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";

export async function createProtocol(db: Db, actorId: string, input: CreateProtocolInput): Promise<ReviewProtocol> {
  try {
    return await db.$transaction(async (tx) => {
      const [{ next } = { next: 0 }] = rowsOf(
        z.object({ next: z.number() }),
        await tx.$queryRaw`SELECT COALESCE(MAX(position) + 1, 0)::int AS next FROM review_protocols`,
      );
      const created = await tx.reviewProtocol.create({
        data: {
          name: input.name,
          citation: "",
          benchmarkVersion: input.benchmarkVersion || null,
          scope: input.scope || null,
          sources: input.sources ?? [],
          createdById: actorId,
          position: next,
        },
      });
      await tx.reviewProtocolRevision.create({
        data: { protocolId: created.id, version: 1, kind: "create", authorId: actorId, reason: "added", next: protocolSnapshot(created) },
      });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

/**
 * Renames, edits, retires or reinstates a team's protocol, as a new version with its reason. The
 * paper's ten are reference data: they are not changed. A change from an older version is refused
 * with both versions.
 */
export async function updateProtocol(db: Db, actorId: string, id: string, input: UpdateProtocolInput): Promise<ReviewProtocol> {
  try {
    return await db.$transaction(async (tx) => {
      const [locked] = rowsOf(
        z.object({ id: z.string() }),
        await tx.$queryRaw`SELECT id FROM review_protocols WHERE id = ${id}::uuid FOR UPDATE`,
      );
      if (!locked) throw notFound(`protocol ${id}`);
      const current = await tx.reviewProtocol.findUniqueOrThrow({ where: { id } });
      if (current.fromPaper)
        throw conflict(
          "reference_protocol",
          `${current.name} is one of the paper's reference protocols: it is not renamed, edited or retired`,
        );
      if (current.version !== input.expectedVersion) {
        throw conflict(
          "edit_conflict",
          `expectedVersion: the protocol is at version ${current.version}; nothing was overwritten`,
          "expectedVersion",
          {
            current: protocolSnapshot(current),
            yours: input,
          },
        );
      }
      const retiring = input.retired === undefined ? null : input.retired;
      const saved = await tx.reviewProtocol.update({
        where: { id },
        data: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.benchmarkVersion !== undefined ? { benchmarkVersion: input.benchmarkVersion || null } : {}),
          ...(input.scope !== undefined ? { scope: input.scope || null } : {}),
          ...(input.sources !== undefined ? { sources: input.sources } : {}),
          ...(retiring === true && !current.retiredAt ? { retiredAt: new Date() } : {}),
          ...(retiring === false ? { retiredAt: null } : {}),
          version: current.version + 1,
        },
      });
      const kind = retiring === true && !current.retiredAt ? "retire" : retiring === false && current.retiredAt ? "reinstate" : "edit";
      await tx.reviewProtocolRevision.create({
        data: {
          protocolId: id,
          version: saved.version,
          kind,
          authorId: actorId,
          reason: input.reason,
          previous: protocolSnapshot(current),
          next: protocolSnapshot(saved),
        },
      });
      return saved;
    });
  } catch (error) {
    if (isUniqueViolation(error) && input.name) throw nameTaken(input.name);
    throw error;
  }
}

/** Codes, consensus and arguments are refused on a retired protocol: its record stays as it was. */
export function assertNotRetired(protocol: Pick<ReviewProtocol, "name" | "retiredAt">) {
  if (protocol.retiredAt) throw conflict("retired", `${protocol.name} is retired: its record is kept as it was and takes no new changes`);
}
