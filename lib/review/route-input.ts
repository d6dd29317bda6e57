import { z } from "zod";
import { can } from "../auth/permissions";
import { queryFlag } from "../http/input";
import type { Principal } from "../auth/principal";
import { consensusSchema, saveCodeSchema } from "./review-schemas";
import type { Viewer } from "./views";

export const protocolIdSchema = z.strictObject({ id: z.uuid("id must be a protocol id (a UUID)") });
export const reviewCodeIdSchema = z.strictObject({ id: z.uuid("id must be a review code id (a UUID)") });
/** The bodies of the cell and consensus routes: the protocol comes from the path. */
export const saveCodeBodySchema = saveCodeSchema.omit({ protocolId: true });
export const consensusBodySchema = consensusSchema.omit({ protocolId: true });
/** `paper=true` counts the paper's published codes as one more rater in the agreement. */
export const matrixQuerySchema = z.strictObject({
  show: z.string().max(64).default("consensus"),
  paper: queryFlag("paper").default(false),
});
export const exportQuerySchema = z.strictObject({
  format: z.enum(["csv", "json", "latex-table3", "latex-a1"], "format must be csv, json, latex-table3 or latex-a1").default("json"),
});

export const viewerOf = (principal: Principal): Viewer => ({ userId: principal.userId, seesAll: can(principal.role, "review:reconcile") });

/** "consensus", "paper", "mine" or a reviewer's id: only reconcilers may ask for someone else's codes. */
export function matrixShow(show: string, principal: Principal): "consensus" | "paper" | { reviewerId: string } {
  if (show === "consensus" || show === "paper") return show;
  if (show === "mine" || show === principal.userId || !can(principal.role, "review:reconcile")) return { reviewerId: principal.userId };
  return { reviewerId: show };
}
