import { z } from "zod";
import { codeNeedsBasis, REVIEW_CODES, REVIEW_FIELDS } from "./codes";

/** A cell's code and its source ledger: one schema for the form, the route and the store. */
export const ledgerSchema = z
  .strictObject({
    code: z.enum(REVIEW_CODES, "code must be one of E, P, NR, NA"),
    sourceLocation: z.string().trim().min(1, "sourceLocation: say where in the sources the code rests (e.g. Paper Sec. 3.2)").max(500),
    basis: z.string().trim().max(4000).optional(),
    citations: z.array(z.string().trim().min(1).max(500)).max(30).default([]),
    sourcesReadOn: z.iso.date("sourcesReadOn must be the date the sources were read (YYYY-MM-DD)"),
  })
  .superRefine((ledger, ctx) => {
    if (codeNeedsBasis(ledger.code) && !ledger.basis) ctx.addIssue({ code: "custom", path: ["basis"], message: `basis: a code of ${ledger.code} needs the reviewer's basis` });
  });
export type Ledger = z.infer<typeof ledgerSchema>;

const reason = z.string().trim().min(1, "reason: every change needs a reason").max(2000);

export const saveCodeSchema = z.strictObject({
  protocolId: z.uuid("protocolId must be a protocol id"),
  field: z.enum(REVIEW_FIELDS, `field must be one of ${REVIEW_FIELDS.join(", ")}`),
  /** The version the reviewer's form started from; null when they had not coded the cell. */
  expectedVersion: z.number().int().min(1).nullable(),
  ledger: ledgerSchema,
  reason,
});
export type SaveCodeInput = z.infer<typeof saveCodeSchema>;

export const restoreSchema = z.strictObject({ version: z.number().int().min(1), reason });

export const consensusSchema = z.strictObject({
  protocolId: z.uuid("protocolId must be a protocol id"),
  field: z.enum(REVIEW_FIELDS, `field must be one of ${REVIEW_FIELDS.join(", ")}`),
  expectedVersion: z.number().int().min(1).nullable(),
  code: z.enum(REVIEW_CODES, "code must be one of E, P, NR, NA"),
  rationale: z.string().trim().min(1, "rationale: say why this is the consensus").max(4000),
  reason,
});
export type ConsensusInput = z.infer<typeof consensusSchema>;
