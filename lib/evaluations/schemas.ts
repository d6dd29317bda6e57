// The evaluation's write boundaries (docs/evaluations.md) and its shared vocabularies: the
// create body, the effect policy, the ingest body (one run record per item, the paper's Table C.1
// open-effects records inside) and its answer, a late resolution, a reset's canary. One schema each,
// shared by the API routes, the typed client, the CLI and the pages; `/api/v1/schema/ingest.json` is
// generated from `ingestBodySchema`. Names are a contract: harnesses write them. The list queries and
// the read answers are in ./read-schemas.ts.
import { z } from "zod";
import { int4, pgTime, UnparsedItems } from "../http/storable";
import { RUN_CLASSIFICATIONS } from "../replay/rules/classification";
import { INHERITED_STATES, type InheritedState } from "../replay/rules/inherited-state";
import { HARNESS_DESIGN_KEYS } from "./harness-design";
import { changeExclusionRuleBodySchema, exclusionRuleDeclarationSchema } from "../statistics/exclusion-rule";
import { parseSurfaceTemplate } from "./surface-templates";

/** The default threshold: a score counts as success at full credit (Inspect's `C`, `true`, 1). */
export const DEFAULT_SCORE_THRESHOLD = 1;

/** How a tool's effects end (docs/evaluations.md, The effect policy). A tool the policy does not name is `unclassified`, never read-only. */
export const EFFECT_CLASSES = ["read_only", "sync_confirmed", "async_handle", "external"] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];
export type ToolClass = EffectClass | "unclassified";

/** What a harness can see of a call it ran (a live run's effect_status, an OTLP span's). */
export const EFFECT_STATUSES = ["pending", "completed", "failed", "cancelled", "unknown"] as const;
export type EffectStatus = (typeof EFFECT_STATUSES)[number];
/**
 * What the harness saw of an effect when the run was scored. `not_executed`: the harness never ran
 * the call (AgentDojo's last turn, left when its loop stopped; an Inspect call with no result after a
 * limit): it leaves nothing open and touches no surface.
 */
export const STATUSES_AT_SCORING = [...EFFECT_STATUSES, "not_executed"] as const;
export type StatusAtScoring = (typeof STATUSES_AT_SCORING)[number];

/** How an effect ended, by system evidence; `cancelled` means confirmed cancelled (unable to commit), `unknown` that the check could not tell. */
export const RESOLUTION_STATUSES = ["completed", "failed", "cancelled", "unknown"] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

export const LABELS = ["success", "failure"] as const;
/** `unscored`: the harness recorded no score (no scoring time, no endpoint label); such a run is in no rate's population. */
export const FINALITIES = ["final", "unresolved", "unscored"] as const;
export type Finality = (typeof FINALITIES)[number];

/** Why a run's label is not final: its first open relevant effect's reason (lib/evaluations/finality.ts). */
export const UNRESOLVED_REASONS = [
  "pending_at_scoring",
  "resolved_after_scoring",
  "never_resolved",
  "unverifiable",
  "unclassified_tool",
] as const;
export type UnresolvedReason = (typeof UNRESOLVED_REASONS)[number];

/**
 * What a final run's finality rests on (finality.ts finalityBasis): evidence recorded for its effects
 * (`recorded_evidence`); the harness's own word, under a design the run declares (`harness_design`);
 * the policy's class alone, a read-only tool or a sync_confirmed tool's returned status
 * (`policy_class`); or nothing to wait for, no effect that ran (`no_effects`).
 */
export const FINALITY_BASES = ["recorded_evidence", "harness_design", "policy_class", "no_effects"] as const;
export type FinalityBasis = (typeof FINALITY_BASES)[number];

/** What a run could have inherited from other runs (one order, lib/replay/rules/inherited-state.ts). */
export { INHERITED_STATES, type InheritedState };

export const MAX_RUNS_PER_BATCH = 1_000;
/** A batch of 1,000 runs with their effects and touches fits well inside this. */
export const MAX_INGEST_BODY_BYTES = 16 * 1024 * 1024;

/** A text field of the evaluation contract: trimmed, not empty, at most `max` characters. */
export const text = (field: string, max = 500) =>
  z.string(`${field} must be text`).trim().min(1, `${field} must not be empty`).max(max, `${field} must be at most ${max} characters`);
const timeMessage = (field: string) => `${field} must be an ISO-8601 time with a zone, e.g. 2026-12-01T10:00:00.000Z`;
const SCORED_AT_MESSAGE = timeMessage("scoredAt");
/** A time field of the evaluation contract: ISO-8601 with a zone, one PostgreSQL can store. */
export const time = (field: string) => pgTime(field, timeMessage(field));
const ms = (iso: string) => Date.parse(iso);

export const EVALUATION_NAME_MAX = 200;
export const EVALUATION_DESCRIPTION_MAX = 4_000;

/** Wildcards a tool pattern may hold: matching is linear in the name's length per part (policy.ts), and no real pattern needs more. */
export const MAX_PATTERN_WILDCARDS = 16;

/** A tool's name, or a pattern where `*` matches any run of characters (the longest matching pattern wins; an exact name beats any pattern). */
export const toolPatternSchema = text("tool name", 200).superRefine((pattern, ctx) => {
  const wildcards = pattern.split("*").length - 1;
  if (wildcards > MAX_PATTERN_WILDCARDS)
    ctx.addIssue({
      code: "custom",
      message: `a tool pattern may hold at most ${MAX_PATTERN_WILDCARDS} wildcards (*); this one holds ${wildcards}`,
    });
});

const effectClassSchema = z.enum(EFFECT_CLASSES, `an effect class must be one of ${EFFECT_CLASSES.join(", ")}`);

/** A surface template (surface-templates.ts): text with `{argument}` names, refused with why when its braces do not pair or a name is blank. */
const surfaceTemplateSchema = text("a surface template").superRefine((template, ctx) => {
  const parsed = parseSurfaceTemplate(template);
  if ("problem" in parsed)
    ctx.addIssue({ code: "custom", message: `a surface template's braces must pair around an argument's name: ${parsed.problem}` });
});

/** A class with the surfaces its calls touch, by templates over their arguments: `{"class": "sync_confirmed", "writes": "fs:{path}"}`. */
const toolSurfacesSchema = z.strictObject({
  class: effectClassSchema,
  reads: surfaceTemplateSchema.optional(),
  writes: surfaceTemplateSchema.optional(),
});
type ToolSurfaces = z.infer<typeof toolSurfacesSchema>;
export type ToolEntry = EffectClass | ToolSurfaces;

/**
 * A policy entry: a class, or an object with a class and templates. Dispatched on the value's type
 * rather than a union, so that a refusal names the entry's own field (`tools.write_file.writes`)
 * with its own message instead of the union's "Invalid input".
 */
export const toolEntrySchema = z.unknown().transform((value, ctx): ToolEntry => {
  const schema = typeof value === "object" && value !== null && !Array.isArray(value) ? toolSurfacesSchema : effectClassSchema;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // Forwarded as they are (an unknown key stays unrecognized_keys, which parseInput names by its path).
  for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
  return z.NEVER;
});

/**
 * `{tools: {NAME or PATTERN: CLASS or {class, reads?, writes?}}}`; every stored version is kept
 * (evaluation_effect_policies), each entry as it was sent.
 */
export const effectPolicySchema = z.strictObject({ tools: z.record(toolPatternSchema, toolEntrySchema) });
export type EffectPolicy = z.infer<typeof effectPolicySchema>;

/**
 * PUT /api/v1/evaluations/{id}/effect-policy: the policy, and the version it was edited from. With
 * `baseVersion` a change made meanwhile is refused (409 edit_conflict); without it the policy
 * applies whatever the current version is, as `{tools}` alone always did.
 */
export const setEffectPolicyBodySchema = effectPolicySchema.extend({
  baseVersion: z
    .int("baseVersion must be the version you edited from (a whole number)")
    .min(1, "baseVersion must be at least 1")
    .optional(),
});
export type SetEffectPolicyBody = z.infer<typeof setEffectPolicyBodySchema>;

/**
 * PUT …/effect-policy's answer: the version saved (or the latest, `unchanged`), the version every figure
 * is under until the new one is applied (`appliedVersion`), and the recompute's progress in scored runs
 * (null when nothing is pending). GET …/summary's `pendingPolicy` follows it until it is applied.
 */
export const setEffectPolicyAnswerSchema = z.object({
  version: z.number().int().min(1),
  unchanged: z.literal(true).optional(),
  appliedVersion: z.number().int().min(1),
  recompute: z.object({ runsDone: z.number().int(), runsTotal: z.number().int() }).nullable(),
});
export type SetEffectPolicyAnswer = z.infer<typeof setEffectPolicyAnswerSchema>;

/** The 409's `details` when baseVersion is stale: the current version with its policy, and the policy refused. */
export const effectPolicyConflictSchema = z.object({
  current: z.object({ version: z.number().int().min(1), policy: effectPolicySchema }),
  yours: effectPolicySchema,
});
export type EffectPolicyConflict = z.infer<typeof effectPolicyConflictSchema>;

/** An evaluation's rule: a run whose record gives no class is completed, so completed runs must be kept. */
export const evaluationRuleDeclarationSchema = exclusionRuleDeclarationSchema.refine((rule) => rule.classes.completed === "keep", {
  path: ["classes", "completed"],
  message:
    "classes.completed must be keep for an evaluation: every ingested run without a runClass is completed, so any other treatment would drop or fail them all",
});

/** PUT /api/v1/evaluations/{id}/exclusion-rule: the change body with the evaluation's rule. */
export const evaluationRuleChangeBodySchema = changeExclusionRuleBodySchema.extend({ rule: evaluationRuleDeclarationSchema });

/** How long a live run (./live/) may stay open before it is stored unscored, unless the evaluation declares otherwise. */
export const DEFAULT_LIVE_RUN_TIMEOUT_SECONDS = 3_600;
/** A week: a declared timeout beyond it is a mistake, and its expiry job would outlive most deployments. */
export const MAX_LIVE_RUN_TIMEOUT_SECONDS = 7 * 24 * 3_600;
export const liveRunTimeoutSecondsSchema = z
  .int("liveRunTimeoutSeconds must be a whole number of seconds")
  .min(1, "liveRunTimeoutSeconds must be at least 1")
  .max(MAX_LIVE_RUN_TIMEOUT_SECONDS, `liveRunTimeoutSeconds must be at most ${MAX_LIVE_RUN_TIMEOUT_SECONDS} (a week)`);

/** Most labels one labelMap may name. */
export const MAX_LABEL_MAP_ENTRIES = 100;

/**
 * How an evaluator's own labels read as success or failure (OpenTelemetry's gen_ai.evaluation.result
 * carries free text, e.g. `relevant`): `{LABEL: "success" | "failure"}`, labels compared trimmed and
 * in lower case. Given on the evaluation, or per trace by the resource attribute `boundary_lab.label_map`.
 */
export const labelMapSchema = z
  .record(
    text("labelMap label", 200).transform((label) => label.toLowerCase()),
    z.enum(LABELS, "a labelMap value must be success or failure"),
  )
  .refine((map) => Object.keys(map).length <= MAX_LABEL_MAP_ENTRIES, `labelMap may name at most ${MAX_LABEL_MAP_ENTRIES} labels`);
export type LabelMap = z.infer<typeof labelMapSchema>;

/** POST /api/v1/evaluations */
export const createEvaluationBodySchema = z.strictObject({
  name: text("name", EVALUATION_NAME_MAX),
  description: z
    .string("description must be text")
    .max(EVALUATION_DESCRIPTION_MAX, `description must be at most ${EVALUATION_DESCRIPTION_MAX} characters`)
    .optional(),
  harness: text("harness", 200).optional(),
  benchmark: text("benchmark", 200).optional(),
  effectPolicy: effectPolicySchema.optional(),
  /** The declared exclusion rule (stored as version 1, then frozen); absent: the default rule. */
  exclusionRule: evaluationRuleDeclarationSchema.optional(),
  /** How long a live run may stay open before it is stored unscored (default 3,600). */
  liveRunTimeoutSeconds: liveRunTimeoutSecondsSchema.optional(),
  /** A run's score at or above which it is a success, for scores sent without a label (OTLP's gen_ai.evaluation.result). */
  scoreThreshold: z.number("scoreThreshold must be a number").finite("scoreThreshold must be a finite number").optional(),
  /** The evaluator's own labels as success or failure, for scores sent with a free-text label (OTLP's gen_ai.evaluation.result). */
  labelMap: labelMapSchema.optional(),
});
export type CreateEvaluationBody = z.infer<typeof createEvaluationBodySchema>;

/** PATCH /api/v1/evaluations/{id}: how scores sent without a success/failure label are read; null clears one. */
export const updateEvaluationScoringBodySchema = z
  .strictObject({
    scoreThreshold: z.number("scoreThreshold must be a number").finite("scoreThreshold must be a finite number").nullable().optional(),
    labelMap: labelMapSchema.nullable().optional(),
  })
  .refine((body) => body.scoreThreshold !== undefined || body.labelMap !== undefined, {
    message: "give scoreThreshold or labelMap (null clears one)",
    path: ["labelMap"],
  });
export type UpdateEvaluationScoringBody = z.infer<typeof updateEvaluationScoringBodySchema>;

export const evaluationIdSchema = z.strictObject({ id: z.uuid("id must be an evaluation id (a UUID)") });
export const effectResolutionPathSchema = z.strictObject({
  id: z.uuid("id must be an evaluation id (a UUID)"),
  effectId: text("effectId", 200),
});

export const evidenceSchema = z.union([text("evidence", 4_000), z.record(z.string(), z.unknown())], "evidence must be text or an object");

/** The system evidence of how an effect ended. */
export const resolutionSchema = z.strictObject({
  status: z.enum(RESOLUTION_STATUSES, `status must be one of ${RESOLUTION_STATUSES.join(", ")}`),
  at: time("at"),
  evidence: evidenceSchema,
  /** Who or what verified it (a person, a reconciler, the controller's API). */
  verifiedBy: text("verifiedBy", 200).optional(),
});
export type ResolutionRecord = z.infer<typeof resolutionSchema>;

/** An open-effects record (Table C.1). `surface` counts as a write to that surface at `requestedAt`. */
export const effectRecordSchema = z
  .strictObject({
    effectId: text("effectId", 200),
    tool: text("tool", 200),
    /** Initiating event: the tool call it came from, its trace position and arguments. */
    callId: text("callId", 200).optional(),
    tracePosition: int4("tracePosition").optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** Resource and controller. */
    surface: text("surface").optional(),
    controller: text("controller", 200).optional(),
    /** Observation handle: a stable id the evaluator can query without trusting the agent. */
    handle: text("handle").optional(),
    requestedAt: time("requestedAt"),
    acknowledgedAt: time("acknowledgedAt").optional(),
    statusAtScoring: z.enum(STATUSES_AT_SCORING, `statusAtScoring must be one of ${STATUSES_AT_SCORING.join(", ")}`),
    /** Possible transitions: states still reachable, and until when they stay relevant. */
    possibleTransitions: z.array(text("possibleTransitions item", 100)).max(20).optional(),
    relevantUntil: time("relevantUntil").optional(),
    /** Cross-run route, in the harness's words. */
    crossRunRoute: text("crossRunRoute", 1_000).optional(),
    /** The surface is public (a wiki page, a paste, a public bucket). */
    public: z.boolean("public must be true or false").optional(),
    notes: text("notes", 4_000).optional(),
    resolution: resolutionSchema.optional(),
  })
  // A call that never ran was never answered and wrote nothing.
  .refine((effect) => effect.statusAtScoring !== "not_executed" || effect.surface === undefined, {
    path: ["surface"],
    message: "an effect that was not executed touches no surface",
  })
  .refine((effect) => effect.statusAtScoring !== "not_executed" || effect.acknowledgedAt === undefined, {
    path: ["acknowledgedAt"],
    message: "an effect that was not executed was never acknowledged",
  });
export type EffectRecord = z.infer<typeof effectRecordSchema>;

export const touchSchema = z.strictObject({
  surface: text("surface"),
  op: z.enum(["read", "write"], "op must be read or write"),
  at: time("at"),
  public: z.boolean("public must be true or false").optional(),
});
export type TouchRecord = z.infer<typeof touchSchema>;

/**
 * A canary check of a reset (docs/evaluations.md, Rule 2): a unique token planted on `surface` before the reset, then
 * searched for after it. Found means the reset did not hold, whatever its `verified` says.
 */
export const canaryCheckSchema = z.strictObject({
  /** The reset's surface, where the canary was planted and searched. */
  surface: text("surface"),
  /** What was planted and where (the token, the keys or paths). */
  planted: text("planted", 4_000),
  found: z.boolean("found must be true or false"),
  /** What showed the canary after the reset (a key and value, an operation id), or what was searched. */
  evidence: evidenceSchema,
});
export type CanaryCheck = z.infer<typeof canaryCheckSchema>;

export const resetSchema = z
  .strictObject({
    surface: text("surface"),
    at: time("at"),
    /** Read back after the reset: only a verified reset breaks a route, and only while no canary survived it. */
    verified: z.boolean("verified must be true or false"),
    evidence: evidenceSchema.optional(),
    canary: canaryCheckSchema.optional(),
  })
  .refine((reset) => !reset.canary || reset.canary.surface === reset.surface, {
    path: ["canary", "surface"],
    message: "canary.surface must be the reset's surface",
  });
export type ResetRecord = z.infer<typeof resetSchema>;

/** What became of a tool call: it ran (ok), the harness or environment refused it (rejected: an unknown tool, bad arguments, no permission), or it ran and raised (error). */
export const TOOL_CALL_OUTCOMES = ["ok", "rejected", "error"] as const;

export const toolCallSchema = z.strictObject({
  callId: text("callId", 200).optional(),
  tool: text("tool", 200),
  at: time("at").optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** For the legal-action rate (a call without one is left out of its population). */
  outcome: z.enum(TOOL_CALL_OUTCOMES, `outcome must be one of ${TOOL_CALL_OUTCOMES.join(", ")}`).optional(),
  /** The error the call returned; a call with an error is not legal whatever its outcome says. */
  error: text("error", 4_000).optional(),
});
export type ToolCallRecord = z.infer<typeof toolCallSchema>;

/** A transcript message's text is cut to this many characters by the importers (a fetched web page as a tool's output). */
export const MESSAGE_CONTENT_MAX = 100_000;
export const MESSAGE_ROLES = ["system", "user", "assistant", "tool"] as const;
/**
 * One message of the run's conversation, as the harness logged it (Inspect's sample messages,
 * AgentDojo's messages): who spoke, the text, the tool calls an assistant message made (id, tool,
 * arguments), and the call a tool message answers. Kept to be read, not audited.
 */
export const messageSchema = z.strictObject({
  role: z.enum(MESSAGE_ROLES, `role must be one of ${MESSAGE_ROLES.join(", ")}`),
  content: z.string("content must be text").max(MESSAGE_CONTENT_MAX, `content may hold at most ${MESSAGE_CONTENT_MAX} characters`),
  toolCalls: z
    .array(z.strictObject({ id: text("toolCalls id", 200), tool: text("tool", 200), arguments: z.unknown().optional() }))
    .max(100)
    .optional(),
  toolCallId: text("toolCallId", 200).optional(),
});
export type MessageRecord = z.infer<typeof messageSchema>;
/** Messages one run may hold. */
export const MAX_RUN_MESSAGES = 2_000;

/** Model calls one run may hold. */
export const MAX_RUN_MODEL_CALLS = 2_000;
/**
 * One call of the agent's model (an Inspect model event, an OpenTelemetry chat span): which model,
 * when it started and how long it took, the tokens it read and wrote, and the error of an attempt
 * that failed. Every field may be unknown. `messagePosition`: the assistant message of `messages`
 * (0-based) the call produced, which the transcript shows it beside. Kept to be read, not audited.
 */
export const modelCallSchema = z.strictObject({
  model: text("model", 200).optional(),
  startedAt: time("startedAt").optional(),
  durationMs: z
    .number("durationMs must be a number")
    .finite("durationMs must be a finite number")
    .min(0, "durationMs must be at least 0")
    .optional(),
  inputTokens: int4("inputTokens").optional(),
  outputTokens: int4("outputTokens").optional(),
  error: text("error", 4_000).optional(),
  messagePosition: int4("messagePosition").optional(),
});
export type ModelCallRecord = z.infer<typeof modelCallSchema>;

/**
 * One run as the harness recorded it. Refused (with the field named): times out of order (scored,
 * ended or an effect requested before the run started; acknowledged or resolved before requested),
 * and two effects with one effectId. `scoredAt` and `endpointLabel` are required, unless the run
 * gives `unscoredReason` instead (the harness scored nothing, e.g. an Inspect sample with no score):
 * then it has neither, nor a terminal label or `scoredOn`.
 */
export const runRecordSchema = z
  .strictObject({
    externalId: text("externalId", 200),
    taskId: text("taskId", 200),
    /** A larger stream or group the harness declares. */
    groupId: text("groupId", 200).optional(),
    attempt: int4("attempt").optional(),
    startedAt: time("startedAt"),
    endedAt: time("endedAt").optional(),
    scoredAt: time("scoredAt").optional(),
    endpointLabel: z.enum(LABELS, "endpointLabel must be success or failure").optional(),
    /** Why the harness recorded no score; given instead of scoredAt and endpointLabel, it stores the run as unscored. */
    unscoredReason: text("unscoredReason", 1_000).optional(),
    terminalLabel: z.enum(LABELS, "terminalLabel must be success or failure").optional(),
    score: z.number("score must be a number").finite().optional(),
    threshold: z.number("threshold must be a number").finite().optional(),
    /** Surfaces the scorer read at scoredAt: reads for the separation rule. */
    scoredOn: z.array(text("scoredOn item")).max(100).optional(),
    /** Other labels the harness recorded beside the endpoint label, by name (AgentDojo's `security`: the injection goal was achieved). `security` is the attack's outcome, counted by the summary's attackSuccess under the run's finality. */
    labels: z.record(text("label name", 100), z.enum(LABELS, "a label must be success or failure")).optional(),
    /** The agent configuration (model and defence) that ran it, in the harness's words (AgentDojo's pipeline): the page's rates per pipeline. */
    pipeline: text("pipeline", 200).optional(),
    /** The injection task an attacked run carried (AgentDojo's injection_task_id): attack success per injection task. */
    injectionTaskId: text("injectionTaskId", 200).optional(),
    /**
     * What became of the run (the five run classes; `completed` when absent): the declared exclusion
     * rule treats each class as it says (an environment failure is excluded by default), whatever its label.
     */
    runClass: z.enum(RUN_CLASSIFICATIONS, `runClass must be one of ${RUN_CLASSIFICATIONS.join(", ")}`).optional(),
    /** Why the run has its class, in the harness's words (a log's error). */
    runClassEvidence: text("runClassEvidence", 4_000).optional(),
    /** The harness design the run declares (lib/evaluations/harness-design.ts): what its harness's own word about its tools rests on. */
    harnessDesign: z.enum(HARNESS_DESIGN_KEYS, `harnessDesign must be one of ${HARNESS_DESIGN_KEYS.join(", ")}`).optional(),
    /** Every scorer's value as the harness recorded it, by scorer (the label comes from one of them, against the threshold); kept, not audited. */
    scorerValues: z
      .record(text("scorer name", 200), z.unknown())
      .refine((values) => Object.keys(values).length <= 50, "scorerValues may name at most 50 scorers")
      .optional(),
    toolCalls: z.array(toolCallSchema).max(1_000).optional(),
    /** The conversation (the transcript the run page shows), in order. */
    messages: z.array(messageSchema).max(MAX_RUN_MESSAGES, `messages may hold at most ${MAX_RUN_MESSAGES}`).optional(),
    /** The agent's model calls, in order (their tokens are summed on the run). */
    modelCalls: z.array(modelCallSchema).max(MAX_RUN_MODEL_CALLS, `modelCalls may hold at most ${MAX_RUN_MODEL_CALLS}`).optional(),
    effects: z.array(effectRecordSchema).max(1_000).optional(),
    touches: z.array(touchSchema).max(10_000).optional(),
    resets: z.array(resetSchema).max(1_000).optional(),
  })
  .superRefine((run, ctx) => {
    const started = ms(run.startedAt);
    const before = (path: (string | number)[], what: string) =>
      ctx.addIssue({ code: "custom", path, message: `${path.at(-1)} is before ${what}` });
    if (run.unscoredReason === undefined) {
      if (run.scoredAt === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["scoredAt"],
          message: `${SCORED_AT_MESSAGE} (or give unscoredReason for a run the harness never scored)`,
        });
      if (run.endpointLabel === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["endpointLabel"],
          message: "endpointLabel must be success or failure (or give unscoredReason for a run the harness never scored)",
        });
    } else {
      for (const field of ["scoredAt", "endpointLabel", "terminalLabel", "scoredOn"] as const) {
        if (run[field] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `${field} must be absent when unscoredReason is given: an unscored run was never scored`,
          });
      }
    }
    if (run.scoredAt !== undefined && ms(run.scoredAt) < started) before(["scoredAt"], "startedAt");
    if (run.endedAt !== undefined && ms(run.endedAt) < started) before(["endedAt"], "startedAt");
    run.modelCalls?.forEach((call, i) => {
      if (call.messagePosition === undefined) return;
      const message = run.messages?.[call.messagePosition];
      if (message?.role !== "assistant")
        ctx.addIssue({
          code: "custom",
          path: ["modelCalls", i, "messagePosition"],
          message: `messagePosition must name an assistant message of messages (0-based): message ${call.messagePosition} is ${message ? `a ${message.role} message` : "not in messages"}`,
        });
    });
    const seen = new Set<string>();
    run.effects?.forEach((effect, i) => {
      const requested = ms(effect.requestedAt);
      if (seen.has(effect.effectId))
        ctx.addIssue({
          code: "custom",
          path: ["effects", i, "effectId"],
          message: `effectId ${effect.effectId} appears twice in this run`,
        });
      seen.add(effect.effectId);
      if (requested < started) before(["effects", i, "requestedAt"], "the run's startedAt");
      if (effect.acknowledgedAt !== undefined && ms(effect.acknowledgedAt) < requested)
        before(["effects", i, "acknowledgedAt"], "requestedAt");
      if (effect.resolution && ms(effect.resolution.at) < requested)
        ctx.addIssue({ code: "custom", path: ["effects", i, "resolution", "at"], message: "resolution.at is before requestedAt" });
    });
  });
export type RunRecord = z.infer<typeof runRecordSchema>;

/** POST /api/v1/evaluations/{id}/runs: up to 1,000 runs. The JSON Schema at /api/v1/schema/ingest.json is this one's. */
export const ingestBodySchema = z.strictObject({
  runs: z
    .array(runRecordSchema)
    .min(1, "runs must not be empty")
    .max(MAX_RUNS_PER_BATCH, `runs must hold at most ${MAX_RUNS_PER_BATCH} runs`),
});
export type IngestBody = z.infer<typeof ingestBodySchema>;

/** The same body with its runs left unparsed (UnparsedItems): ingestRuns parses them one by one, so that one bad run refuses only itself. */
export const ingestEnvelopeSchema = ingestBodySchema.extend({
  runs: z
    .array(z.unknown(), "runs must be an array")
    .min(1, "runs must not be empty")
    .max(MAX_RUNS_PER_BATCH, `runs must hold at most ${MAX_RUNS_PER_BATCH} runs`)
    .transform((items) => new UnparsedItems(items)),
});

export const INGEST_STATUSES = ["created", "unchanged", "updated", "error"] as const;
export type IngestStatus = (typeof INGEST_STATUSES)[number];

const errorSchema = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });
export const ingestResultSchema = z.object({
  /** null when the run had no readable externalId. */
  externalId: z.string().nullable(),
  status: z.enum(INGEST_STATUSES),
  error: errorSchema.optional(),
});
export type IngestResult = z.infer<typeof ingestResultSchema>;
export const ingestResponseSchema = z.object({ results: z.array(ingestResultSchema) });
export type IngestResponse = z.infer<typeof ingestResponseSchema>;

/** POST /api/v1/evaluations/{id}/effects/{effectId}/resolutions: appended, never overwriting. `runExternalId` is needed only when several runs use the effectId. */
export const postResolutionBodySchema = resolutionSchema.extend({ runExternalId: text("runExternalId", 200).optional() });
export type PostResolutionBody = z.infer<typeof postResolutionBodySchema>;

/**
 * POST /api/v1/evaluations/{id}/runs/{externalId}/resets/canary: a canary check of one of the run's
 * resets, appended. `surface` names the reset; `at` its time, needed only when the run reset that
 * surface more than once.
 */
export const postResetCanaryBodySchema = canaryCheckSchema.extend({ at: time("at").optional() });
export type PostResetCanaryBody = z.infer<typeof postResetCanaryBodySchema>;
export const evaluationRunPathSchema = z.strictObject({
  id: z.uuid("id must be an evaluation id (a UUID)"),
  externalId: text("externalId", 200),
});
