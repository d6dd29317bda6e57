// A small typed client of the evaluation API, for the tests, the ingest CLI and harnesses. It sends
// an API key as a bearer token and checks every answer against the same zod schemas the server uses.
import { z } from "zod";
import { comparisonAnswerSchema, type ComparisonAnswer } from "../read/compare";
import { evaluationStatisticsSchema, type EvaluationStatistics } from "../read/evaluation-statistics";
import { evaluationDetailSchema, evaluationSummarySchema, type EvaluationDetail, type EvaluationSummary } from "../read/read-boundary";
import { ingestResponseSchema, type IngestResponse } from "../run-record-schema";
import {
  setEffectPolicyAnswerSchema,
  type EffectPolicy,
  type SetEffectPolicyAnswer,
  type SetEffectPolicyBody,
} from "../effect-policy-schema";
import type { CreateEvaluationBody, PostResolutionBody } from "../evaluation-requests";
import {
  liveEventsAnswerSchema,
  openLiveRunAnswerSchema,
  scoreLiveRunAnswerSchema,
  type LiveEventsAnswer,
  type OpenLiveRunAnswer,
  type OpenLiveRunBody,
  type ScoreLiveRunAnswer,
  type ScoreLiveRunBody,
} from "../live/live-run-schemas";
import { toolSuggestionsAnswerSchema, type PostToolSuggestionsBody, type StoredToolSuggestion } from "../tool-suggestions";

/** An answer that was not 2xx: its status and the API's `{error: {code, message, field?, details?}}`. */
export class EvaluationApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** e.g. the existing evaluation of a taken name, both policies of an edit conflict. */
    readonly details?: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

const errorAnswer = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional(), details: z.unknown().optional() }),
});

export interface EvaluationClientOptions {
  /** e.g. http://localhost:3000 */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch; tests pass one that calls the route handlers. */
  fetch?: (request: Request) => Promise<Response>;
}

export function evaluationClient(options: EvaluationClientOptions) {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  async function call<T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    const request = new Request(new URL(path, options.baseUrl), {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const response = await send(request);
    const json: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const parsed = errorAnswer.safeParse(json);
      if (!parsed.success) throw new EvaluationApiError(response.status, "http_error", response.statusText);
      const { code, message, field, details } = parsed.data.error;
      throw new EvaluationApiError(response.status, code, message, field, details);
    }
    return schema.parse(json);
  }
  const at = (id: string) => `/api/v1/evaluations/${encodeURIComponent(id)}`;
  return {
    createEvaluation: (body: CreateEvaluationBody): Promise<{ id: string }> =>
      call("POST", "/api/v1/evaluations", z.object({ id: z.string() }), body),
    getEvaluation: (id: string): Promise<EvaluationDetail> => call("GET", at(id), evaluationDetailSchema),
    /** Up to 1,000 runs (any shape: the server names each bad run's field). */
    ingestRuns: (id: string, runs: readonly unknown[]): Promise<IngestResponse> =>
      call("POST", `${at(id)}/runs`, ingestResponseSchema, { runs }),
    appendResolution: (id: string, effectId: string, body: PostResolutionBody): Promise<{ id: string; runExternalId: string }> =>
      call(
        "POST",
        `${at(id)}/effects/${encodeURIComponent(effectId)}/resolutions`,
        z.object({ id: z.string(), runExternalId: z.string() }),
        body,
      ),
    /** With `baseVersion`, refused (409 edit_conflict) when the policy is no longer at that version. */
    setEffectPolicy: (id: string, policy: EffectPolicy, baseVersion?: number): Promise<SetEffectPolicyAnswer> =>
      call("PUT", `${at(id)}/effect-policy`, setEffectPolicyAnswerSchema, {
        ...policy,
        ...(baseVersion === undefined ? {} : { baseVersion }),
      } satisfies SetEffectPolicyBody),
    summary: (id: string): Promise<EvaluationSummary> => call("GET", `${at(id)}/summary`, evaluationSummarySchema),
    statistics: (id: string): Promise<EvaluationStatistics> => call("GET", `${at(id)}/statistics`, evaluationStatisticsSchema),
    /** Opens a live run (again, when a first open's answer was lost: `created` false). */
    openLiveRun: (id: string, body: OpenLiveRunBody): Promise<OpenLiveRunAnswer> =>
      call("POST", `${at(id)}/live-runs`, openLiveRunAnswerSchema, body),
    /** Up to 5,000 events of a live run, in any order; safe to re-send (idempotent by eventId). */
    sendLiveEvents: (id: string, externalId: string, events: readonly unknown[]): Promise<LiveEventsAnswer> =>
      call("POST", `${at(id)}/live-runs/${encodeURIComponent(externalId)}/events`, liveEventsAnswerSchema, { events }),
    scoreLiveRun: (id: string, externalId: string, body: ScoreLiveRunBody): Promise<ScoreLiveRunAnswer> =>
      call("POST", `${at(id)}/live-runs/${encodeURIComponent(externalId)}/score`, scoreLiveRunAnswerSchema, body),
    /** A recorder's tool-class suggestions (shown beside the policy; none is in force until saved into a version). */
    suggestToolClasses: (id: string, body: PostToolSuggestionsBody): Promise<{ stored: number }> =>
      call("POST", `${at(id)}/tool-suggestions`, z.object({ stored: z.number() }), body),
    toolSuggestions: async (id: string): Promise<StoredToolSuggestion[]> =>
      (await call("GET", `${at(id)}/tool-suggestions`, toolSuggestionsAnswerSchema)).suggestions,
    compare: (ids: readonly string[]): Promise<ComparisonAnswer> =>
      call("GET", `/api/v1/evaluations/compare?${new URLSearchParams({ ids: ids.join(",") })}`, comparisonAnswerSchema),
  };
}
export type EvaluationClient = ReturnType<typeof evaluationClient>;
