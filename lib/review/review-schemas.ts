import { z } from "zod";
import { PROTOCOL_LIMITS } from "./protocol-limits";
import { int4, pgDate } from "../http/storable";
import { codeNeedsBasis, REVIEW_CODES, REVIEW_FIELDS } from "./codes";

/** A cell's code and its source ledger: one schema for the form, the route and the store. */
export const ledgerSchema = z
  .strictObject({
    code: z.enum(REVIEW_CODES, "code must be one of E, P, NR, NA"),
    sourceLocation: z.string().trim().min(1, "sourceLocation: say where in the sources the code rests (e.g. Paper Sec. 3.2)").max(500),
    basis: z.string().trim().max(4000).optional(),
    citations: z.array(z.string().trim().min(1).max(500)).max(30).default([]),
    sourcesReadOn: pgDate("sourcesReadOn must be the date the sources were read (YYYY-MM-DD, from 0001)"),
  })
  .superRefine((ledger, ctx) => {
    if (codeNeedsBasis(ledger.code) && !ledger.basis)
      ctx.addIssue({ code: "custom", path: ["basis"], message: `basis: a code of ${ledger.code} needs the reviewer's basis` });
  });
export type Ledger = z.infer<typeof ledgerSchema>;

const reason = z.string().trim().min(1, "reason: every change needs a reason").max(2000);

export const saveCodeSchema = z.strictObject({
  protocolId: z.uuid("protocolId must be a protocol id"),
  field: z.enum(REVIEW_FIELDS, `field must be one of ${REVIEW_FIELDS.join(", ")}`),
  /** The version the reviewer's form started from; null when they had not coded the cell. */
  expectedVersion: int4("expectedVersion", 1).nullable(),
  ledger: ledgerSchema,
  reason,
});
export type SaveCodeInput = z.infer<typeof saveCodeSchema>;

export const restoreSchema = z.strictObject({ version: int4("version", 1), reason });

export const consensusSchema = z.strictObject({
  protocolId: z.uuid("protocolId must be a protocol id"),
  field: z.enum(REVIEW_FIELDS, `field must be one of ${REVIEW_FIELDS.join(", ")}`),
  expectedVersion: int4("expectedVersion", 1).nullable(),
  code: z.enum(REVIEW_CODES, "code must be one of E, P, NR, NA"),
  rationale: z.string().trim().min(1, "rationale: say why this is the consensus").max(4000),
  reason,
});
export type ConsensusInput = z.infer<typeof consensusSchema>;

/** Text limits of a protocol's own description, named in every error. */

const httpUrl = z
  .string()
  .trim()
  .max(PROTOCOL_LIMITS.source, `sources: a link must be at most ${PROTOCOL_LIMITS.source} characters`)
  .refine((s) => /^https?:\/\//i.test(s) && URL.canParse(s), "sources: each source must be an http(s) URL");

const protocolFields = {
  name: z
    .string("name is required")
    .trim()
    .min(1, "name is required")
    .max(PROTOCOL_LIMITS.name, `name must be at most ${PROTOCOL_LIMITS.name} characters`),
  benchmarkVersion: z
    .string()
    .trim()
    .max(PROTOCOL_LIMITS.benchmarkVersion, `benchmarkVersion must be at most ${PROTOCOL_LIMITS.benchmarkVersion} characters`)
    .optional(),
  scope: z.string().trim().max(PROTOCOL_LIMITS.scope, `scope must be at most ${PROTOCOL_LIMITS.scope} characters`).optional(),
  sources: z
    .array(httpUrl, "sources must be a list of URLs")
    .max(PROTOCOL_LIMITS.sources, `sources: at most ${PROTOCOL_LIMITS.sources} links`)
    .optional(),
};

/** POST /api/v1/protocols and the add-protocol form. */
export const createProtocolSchema = z.strictObject(protocolFields);
export type CreateProtocolInput = z.infer<typeof createProtocolSchema>;

/** PATCH /api/v1/protocols/{id}: rename, edit, retire or reinstate, from the version the form showed. */
export const updateProtocolSchema = z
  .strictObject({
    ...protocolFields,
    name: protocolFields.name.optional(),
    retired: z.boolean("retired must be true or false").optional(),
    expectedVersion: int4("expectedVersion (the protocol version you edited)", 1),
    reason,
  })
  .refine(
    (u) =>
      u.name !== undefined ||
      u.benchmarkVersion !== undefined ||
      u.scope !== undefined ||
      u.sources !== undefined ||
      u.retired !== undefined,
    {
      message: "nothing to change: give name, benchmarkVersion, scope, sources or retired",
      path: ["name"],
    },
  );
export type UpdateProtocolInput = z.infer<typeof updateProtocolSchema>;
