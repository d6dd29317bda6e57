// The OpenTelemetry names the mapping reads (docs/otel.md): the GenAI semantic conventions' and the
// Vercel AI SDK's attributes and span names, Boundary Lab's own `boundary_lab.*` ones, and which spans
// are tool calls, model calls, or agent data at all. Pure.
import type { OtlpSpan } from "./spans";

export const ATTR = {
  evaluation: "boundary_lab.evaluation",
  runId: "boundary_lab.run.id",
  taskId: "boundary_lab.task.id",
  effectId: "boundary_lab.effect.id",
  effectStatus: "boundary_lab.effect.status",
  effectHandle: "boundary_lab.effect.handle",
  effectSurface: "boundary_lab.effect.surface",
  surface: "boundary_lab.surface",
  op: "boundary_lab.op",
  verified: "boundary_lab.verified",
  evidence: "boundary_lab.evidence",
  labelMap: "boundary_lab.label_map",
  serviceName: "service.name",
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  evaluationName: "gen_ai.evaluation.name",
  scoreLabel: "gen_ai.evaluation.score.label",
  scoreValue: "gen_ai.evaluation.score.value",
  aiToolName: "ai.toolCall.name",
  aiToolCallId: "ai.toolCall.id",
  aiToolArgs: "ai.toolCall.args",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  aiModelId: "ai.model.id",
  aiResponseModel: "ai.response.model",
  aiInputTokens: "ai.usage.inputTokens",
  aiOutputTokens: "ai.usage.outputTokens",
  aiPromptTokens: "ai.usage.promptTokens",
  aiCompletionTokens: "ai.usage.completionTokens",
  aiOperationId: "ai.operationId",
} as const;

/** The GenAI conventions' inference operations: each span is one call of a model. */
const INFERENCE_OPERATIONS = ["chat", "text_completion", "generate_content"];
/** The AI SDK's spans of one call of the provider's model (its outer `ai.generateText` span spans every step's call). */
const AI_SDK_MODEL_CALLS = [
  "ai.generateText.doGenerate",
  "ai.streamText.doStream",
  "ai.generateObject.doGenerate",
  "ai.streamObject.doStream",
];

export const EVENT = {
  effectStatus: "boundary_lab.effect.status",
  touch: "boundary_lab.touch",
  reset: "boundary_lab.reset",
  evaluationResult: "gen_ai.evaluation.result",
} as const;

export const isToolSpan = (span: OtlpSpan) =>
  span.attributes[ATTR.operation] === "execute_tool" || span.name === "ai.toolCall" || span.attributes["ai.operationId"] === "ai.toolCall";
export const isModelCallSpan = (span: Pick<OtlpSpan, "name" | "attributes">) =>
  INFERENCE_OPERATIONS.includes(span.attributes[ATTR.operation] as string) ||
  AI_SDK_MODEL_CALLS.includes(span.name) ||
  AI_SDK_MODEL_CALLS.includes(span.attributes[ATTR.aiOperationId] as string);
export const isAgentData = (span: OtlpSpan) =>
  isToolSpan(span) ||
  isModelCallSpan(span) ||
  typeof span.attributes[ATTR.operation] === "string" ||
  Object.keys(span.attributes).some((key) => key.startsWith("boundary_lab.") || key.startsWith("ai.telemetry.metadata.boundary_lab.")) ||
  span.events.some((event) => Object.values(EVENT).includes(event.name as never));
