// One run as a harness records it (the paper's Table C.1 open-effects records inside: effects with
// their resolutions, touches, resets with canary checks, tool calls, messages, model calls) and the
// ingest body of up to 1,000 of them with its answer. `/api/v1/schema/ingest.json` is generated from
// `ingestBodySchema`; the batch API, the CLI, the importers and live runs all produce this record.
import { z } from "zod";
import { int4, UnparsedItems } from "../http/storable";
import { RUN_CLASSIFICATIONS } from "../replay/rules/classification";
import { HARNESS_DESIGN_KEYS } from "./harness-design";
import { LABELS, MAX_RUNS_PER_BATCH, RESOLUTION_STATUSES, STATUSES_AT_SCORING, text, time, timeMessage } from "./vocabulary";

const SCORED_AT_MESSAGE = timeMessage("scoredAt");
const ms = (iso: string) => Date.parse(iso);

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
