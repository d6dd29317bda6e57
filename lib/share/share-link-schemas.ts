import { z } from "zod";
import { queryFlag } from "../http/input";
import { comparedIdsParamSchema, comparedIdsSchema } from "../statistics/comparison";

/** What a link can point at: one experiment, one run, one evaluation, one protocol's completion argument (by the protocol's id), the protocol-review matrix (which has no id), or a comparison of evaluations (by their ids, in order). */
export const SHARE_RESOURCE_TYPES = ["experiment", "run", "protocol_matrix", "evaluation", "completion_argument", "comparison"] as const;
export type ShareResourceType = (typeof SHARE_RESOURCE_TYPES)[number];

/** frozen: the content as it was when the link was made; live: the content as it is when opened. */
export const SHARE_MODES = ["frozen", "live"] as const;
export type ShareMode = (typeof SHARE_MODES)[number];

export const MAX_SHARE_LINK_DAYS = 3650;

const resourceType = z.enum(SHARE_RESOURCE_TYPES, `resourceType must be one of ${SHARE_RESOURCE_TYPES.join(", ")}`);
const resourceId = z.uuid("resourceId must be an experiment, run, evaluation or protocol id (a UUID)");

/** A comparison's evaluations, in the order compared (as GET /api/v1/evaluations/compare takes them). */
const resourceIds = comparedIdsSchema("resourceIds");

/** An experiment or a run is named by its id; the protocol matrix, the only one of its kind, by none; a comparison by its evaluations' ids. */
function resourceIdRule(action: string) {
  return (input: { resourceType?: ShareResourceType; resourceId?: string; resourceIds?: string[] }, ctx: z.RefinementCtx) => {
    if (input.resourceType === undefined) return;
    const needsId = input.resourceType !== "protocol_matrix" && input.resourceType !== "comparison";
    if (needsId && input.resourceId === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["resourceId"],
        message: `resourceId is required to ${action} ${/^[aeiou]/.test(input.resourceType) ? "an" : "a"} ${input.resourceType}`,
      });
    if (!needsId && input.resourceId !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["resourceId"],
        message: `resourceId must be left out for the ${input.resourceType === "comparison" ? "comparison (give resourceIds)" : "protocol matrix"}`,
      });
    if (input.resourceType === "comparison" && input.resourceIds === undefined)
      ctx.addIssue({ code: "custom", path: ["resourceIds"], message: `resourceIds is required to ${action} a comparison` });
    if (input.resourceType !== "comparison" && input.resourceIds !== undefined)
      ctx.addIssue({ code: "custom", path: ["resourceIds"], message: "resourceIds is only for a comparison" });
  };
}

/** The create-link body, shared by the API route and the form. */
export const createShareLinkSchema = z
  .strictObject({
    resourceType,
    resourceId: resourceId.optional(),
    resourceIds: resourceIds.optional(),
    mode: z.enum(SHARE_MODES, `mode must be one of ${SHARE_MODES.join(", ")}`).default("frozen"),
    /** null: never expires, by explicit choice; omitted: the instance default (SHARE_LINK_DEFAULT_DAYS). */
    expiresInDays: z
      .number("expiresInDays must be a whole number of days, or null for never")
      .int("expiresInDays must be a whole number of days")
      .min(1, "expiresInDays must be at least 1")
      .max(MAX_SHARE_LINK_DAYS, `expiresInDays must be at most ${MAX_SHARE_LINK_DAYS}`)
      .nullable()
      .optional(),
    note: z.string().trim().max(200, "note must be at most 200 characters").optional(),
  })
  .superRefine(resourceIdRule("share"));
export type CreateShareLinkInput = z.infer<typeof createShareLinkSchema>;

/** The `[id]` path parameter of the share-link routes. */
export const shareLinkIdSchema = z.strictObject({ id: z.uuid("id must be a share link id (a UUID)") });

/**
 * GET /api/v1/share-links: `?all=true` lists every link on the instance (admins only);
 * `?resourceType=experiment&resourceId=…` (or `run`, or `protocol_matrix` without an id) only the
 * links to that one resource, for its share panel.
 */
export const listShareLinksQuerySchema = z
  .strictObject({
    all: queryFlag("all").default(false),
    resourceType: resourceType.optional(),
    resourceId: resourceId.optional(),
    /** A comparison's ids, comma-separated. */
    resourceIds: comparedIdsParamSchema("resourceIds").optional(),
  })
  .superRefine((input, ctx) => {
    if (input.resourceType === undefined && input.resourceId !== undefined)
      ctx.addIssue({ code: "custom", path: ["resourceType"], message: "resourceType is required with resourceId" });
  })
  .superRefine(resourceIdRule("list the links of"));
export type ListShareLinksQuery = z.infer<typeof listShareLinksQuerySchema>;

/** PUT /api/v1/settings/share-links: the instance-wide kill switch. */
export const killSwitchSchema = z.strictObject({ disabled: z.boolean("disabled must be true or false") });
