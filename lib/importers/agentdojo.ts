// An AgentDojo run log (lib/testing/fixtures/agentdojo/README.md, a copy of the shared fixtures) → one run. AgentDojo's tools run
// in-process and synchronously, so a state-changing call that returned was terminal before the
// next step, long before scoring: its effect is `sync_confirmed`, completed (or failed, when the
// call raised), never an invented open effect. Each task runs on a fresh copy of the suite's
// environment, so effects name no shared surface.
import { z } from "zod";
import { boundedContent, boundedMessages, contentText, roleOf } from "./transcript";
import { runRecordSchema, type EffectRecord, type MessageRecord, type RunRecord } from "../evaluations/run-record-schema";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";
import { AGENTDOJO_READ_TOOLS, AGENTDOJO_SUITES, AGENTDOJO_WRITE_TOOLS, type AgentDojoSuite } from "../traces/agentdojo-tools";
import { SkippedLog, firstIssue, type ImportedLog } from "./imported-log";

const functionCallSchema = z.looseObject({
  function: z.string(),
  args: z.record(z.string(), z.unknown()).nullish(),
  id: z.string().nullish(),
});
type FunctionCall = z.infer<typeof functionCallSchema>;

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_call_id: z.string().nullish(),
  tool_calls: z.array(functionCallSchema).nullish(),
  tool_call: functionCallSchema.nullish(),
  error: z.string().nullish(),
});

/** The fields this importer reads; key order and extra fields do not matter. */
export const agentDojoLogSchema = z.looseObject({
  suite_name: z.enum(AGENTDOJO_SUITES),
  pipeline_name: z.string().nullish(),
  user_task_id: z.string().min(1),
  injection_task_id: z.string().nullish(),
  attack_type: z.string().nullish(),
  messages: z.array(messageSchema),
  error: z.string().nullish(),
  utility: z.boolean().nullish(),
  security: z.boolean().nullish(),
  duration: z.number().nonnegative().nullish(),
  evaluation_timestamp: z.string().nullish(),
});
type AgentDojoLog = z.infer<typeof agentDojoLogSchema>;

/** A run log, as opposed to an Inspect log or anything else: told by its own fields. */
export function looksLikeAgentDojo(value: unknown): boolean {
  return typeof value === "object" && value !== null && "suite_name" in value && "user_task_id" in value && "messages" in value;
}

/** The tool name kept for a call whose function name is empty (models do that). */
export const EMPTY_TOOL_NAME = "(empty function name)";
/** What AgentDojo itself writes for such a call's name (`agentdojo.functions_runtime.EMPTY_FUNCTION_NAME`). */
const AGENTDOJO_EMPTY_FUNCTION_NAME = "<empty-function-name>";

/** Read-only and sync_confirmed, per tool, for every suite (no tool name has two classes across suites). */
export function agentDojoEffectPolicy(): EffectPolicy {
  const tools: EffectPolicy["tools"] = {};
  for (const suite of AGENTDOJO_SUITES) {
    for (const tool of AGENTDOJO_READ_TOOLS[suite]) tools[tool] = "read_only";
    for (const tool of AGENTDOJO_WRITE_TOOLS[suite]) tools[tool] = "sync_confirmed";
  }
  return { tools };
}

/**
 * The pipeline a log belongs to, from its path (`runs/{pipeline}/{suite}/{user_task}/…`, or those
 * segments joined by `__`): the segment before the suite. The log's own `pipeline_name` is the
 * fallback, since some logs say `local`.
 */
export function pipelineOf(path: string, log: Pick<AgentDojoLog, "suite_name" | "user_task_id" | "pipeline_name">): string {
  const segments = path.split(/\/|__/);
  for (let i = segments.length - 2; i >= 1; i -= 1) {
    if (segments[i] === log.suite_name && segments[i + 1] === log.user_task_id) return segments[i - 1]!;
  }
  return log.pipeline_name || "unknown pipeline";
}

interface Call {
  call: FunctionCall;
  /** null: no tool message answered it (the run stopped first). */
  answer: { error: string | null } | null;
  /** A call of the last model turn, which AgentDojo's loop never executes (notExecutedTurn). */
  notExecuted: boolean;
}

/**
 * AgentDojo's tool loop (`ToolsExecutionLoop`) executes a turn's calls, then asks the model again, at
 * most `max_iters` times; when it stops, the last model turn's calls have not been executed, and the
 * task is scored after the loop. So a log that ends with a model turn of calls (nothing after it, and
 * no error that stopped the run mid-way) holds calls that provably never ran.
 */
function endsWithUnexecutedTurn(log: AgentDojoLog): boolean {
  const last = log.messages.at(-1);
  return !log.error && last?.role === "assistant" && (last.tool_calls ?? []).length > 0;
}

/** Calls in order, each with the tool message that answered it: the tool messages after a turn answer its calls in order. */
function callsOf(log: AgentDojoLog): Call[] {
  const calls: Call[] = [];
  let unanswered: Call[] = [];
  const lastTurn = endsWithUnexecutedTurn(log) ? log.messages.at(-1) : undefined;
  for (const message of log.messages) {
    if (message.role === "assistant") {
      unanswered = (message.tool_calls ?? []).map((call) => ({ call, answer: null, notExecuted: message === lastTurn }));
      calls.push(...unanswered);
    } else if (message.role === "tool") {
      const answered = unanswered.shift();
      const answer = { error: message.error || null };
      if (answered) answered.answer = answer;
      else if (message.tool_call) calls.push({ call: message.tool_call, answer, notExecuted: false }); // a tool message without its turn: its own copy of the call
    }
  }
  return calls;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The log's messages as the run's transcript: an assistant turn's calls with their ids (AgentDojo's
 * own, else the call's position), a tool message tied to the call it answers (its tool_call_id, else
 * the turn's calls in order, as callsOf reads them) with its error as its text when it failed.
 */
function transcriptOf(log: AgentDojoLog): MessageRecord[] {
  const messages: MessageRecord[] = [];
  let unanswered: string[] = [];
  let position = 0;
  for (const message of log.messages) {
    const role = roleOf(message.role);
    if (!role) continue;
    const content = boundedContent(contentText(message.content));
    if (role === "assistant") {
      const calls = (message.tool_calls ?? []).map((call) => ({
        id: (call.id?.trim() || `call-${position}`).slice(0, 200),
        tool: (call.function.trim() || AGENTDOJO_EMPTY_FUNCTION_NAME).slice(0, 200),
        ...(call.args && { arguments: call.args }),
        position: position++,
      }));
      unanswered = calls.map((c) => c.id);
      messages.push({ role, content, ...(calls.length > 0 && { toolCalls: calls.map(({ position: _, ...call }) => call) }) });
    } else if (role === "tool") {
      const answers = message.tool_call_id?.trim() || message.tool_call?.id?.trim() || unanswered[0];
      unanswered = unanswered.filter((id) => id !== answers);
      messages.push({
        role,
        content: message.error ? boundedContent(message.error) : content,
        ...(answers && { toolCallId: answers.slice(0, 200) }),
      });
    } else messages.push({ role, content });
  }
  return boundedMessages(messages);
}

/** `YYYY-MM-DD HH:MM:SS` (AgentDojo writes no zone; read as UTC). */
function timestampMs(value: string | null | undefined): number | null {
  if (!value) return null;
  const ms = Date.parse(`${value.trim().replace(" ", "T")}Z`);
  return Number.isFinite(ms) ? ms : null;
}

const NOT_EXECUTED_NOTE =
  "the log ends with this model turn: AgentDojo's tool loop stopped (its last iteration) without executing its calls, and scored the run after the loop, so this call never ran";

const SYNC_NOTE =
  "AgentDojo runs its tools in-process and synchronously: the call returned before the agent's next step, so its return proves the effect terminal before scoring";

/** One AgentDojo run log → one run. Throws SkippedLog when the log cannot be a run (no utility recorded, fields missing). */
export function importAgentDojoLog(value: unknown, path: string): ImportedLog {
  const parsed = agentDojoLogSchema.safeParse(value);
  if (!parsed.success) throw new SkippedLog(`not a readable AgentDojo run log: ${firstIssue(parsed.error)}`);
  const log = parsed.data;
  const suite: AgentDojoSuite = log.suite_name;
  if (log.utility === undefined || log.utility === null) {
    throw new SkippedLog(
      `no utility recorded, so no endpoint label${log.error ? ` (the run ended with error: ${log.error})` : ""}: re-run the task to score it`,
    );
  }
  const pipeline = pipelineOf(path, log);
  const attack = log.attack_type ?? null;
  const injection = log.injection_task_id ?? null;
  const notes: string[] = [];

  const durationMs = Math.round((log.duration ?? 0) * 1000);
  const evaluatedMs = timestampMs(log.evaluation_timestamp);
  // The log's only times are its evaluation timestamp (newer logs) and its duration.
  const scoredMs = evaluatedMs ?? durationMs;
  const startedMs = scoredMs - durationMs;
  if (evaluatedMs === null) notes.push("the log records no time: the run starts at the Unix epoch and is scored `duration` seconds later");
  else notes.push("scored at evaluation_timestamp (read as UTC), started `duration` seconds before");
  const startedAt = iso(startedMs);
  const scoredAt = iso(scoredMs);

  const known = new Set([...AGENTDOJO_READ_TOOLS[suite], ...AGENTDOJO_WRITE_TOOLS[suite]]);
  const writes = new Set(AGENTDOJO_WRITE_TOOLS[suite]);
  const unknownTools = new Set<string>();
  const calls = callsOf(log);
  const toolCalls: NonNullable<RunRecord["toolCalls"]> = [];
  const effects: EffectRecord[] = [];
  calls.forEach(({ call, answer, notExecuted }, position) => {
    const name = call.function.trim();
    const tool = name === "" || name === AGENTDOJO_EMPTY_FUNCTION_NAME ? EMPTY_TOOL_NAME : name;
    const callId = call.id?.trim() || undefined;
    const args = call.args ?? undefined;
    // An unanswered call has no outcome: the log does not say whether it ran.
    const outcome =
      answer === null
        ? undefined
        : answer.error
          ? { outcome: "error" as const, error: answer.error.slice(0, 4_000) }
          : { outcome: "ok" as const };
    toolCalls.push({ tool, ...(callId && { callId }), ...(args && { arguments: args }), ...outcome });
    // A call without a name is no tool (AgentDojo answers it with an error): kept as a call, never listed as a tool to classify.
    if (!known.has(tool) && tool !== EMPTY_TOOL_NAME) unknownTools.add(tool);
    if (!writes.has(tool)) return;
    effects.push({
      effectId: `call-${position}`,
      tool,
      ...(callId && { callId }),
      tracePosition: position,
      ...(args && { arguments: args }),
      controller: `AgentDojo ${suite} environment (in-process)`,
      requestedAt: startedAt,
      ...(answer && { acknowledgedAt: startedAt }),
      statusAtScoring: notExecuted ? "not_executed" : answer === null ? "unknown" : answer.error ? "failed" : "completed",
      notes: notExecuted
        ? NOT_EXECUTED_NOTE
        : answer === null
          ? "no tool message answered this call: the log does not say whether it ran"
          : answer.error
            ? `${SYNC_NOTE}; it raised ${answer.error}`
            : SYNC_NOTE,
    });
  });
  if (unknownTools.size > 0)
    notes.push(`tools AgentDojo's ${suite} suite does not have (invented by the model) are kept in the tool calls and given no effect`);
  if (log.error)
    notes.push(
      `the run ended with error: ${log.error}; its labels are AgentDojo's default for a task it could not run, so it is an environment failure`,
    );
  if (calls.some((c) => c.notExecuted))
    notes.push("the log ends with a model turn of calls, which AgentDojo's loop never executes: they are recorded as not executed");

  const run = runRecordSchema.safeParse({
    externalId: [pipeline, suite, log.user_task_id, attack ?? "none", injection ?? "none"].join("/"),
    // Under an attack, the task is the pair (user task, injection task) AgentDojo scores: its variants are different tasks for pass^k, not repeated trials.
    taskId: attack ? `${suite}/${log.user_task_id}/${attack}/${injection ?? "none"}` : `${suite}/${log.user_task_id}`,
    ...(attack && { groupId: `${attack}/${injection ?? "none"}` }),
    startedAt,
    endedAt: scoredAt,
    scoredAt,
    endpointLabel: log.utility ? "success" : "failure",
    // `security` says the injection goal was achieved; without an attack it carries no information.
    ...(attack && typeof log.security === "boolean" && { labels: { security: log.security ? "success" : "failure" } }),
    // The model and defence that ran it: the page's utility and attack success per pipeline, within one evaluation too.
    pipeline,
    // Suite-qualified, as the task id is: injection_task_1 of banking is not slack's.
    ...(attack && injection && { injectionTaskId: `${suite}/${injection}` }),
    // AgentDojo writes utility false (and security true) for a task it could not run to its end (a
    // provider's error, a context-length error) without running the task's checks: the labels are the
    // log's, the run an environment failure, which the declared rule excludes by default.
    ...(log.error && {
      runClass: "environment_failure" as const,
      runClassEvidence: `AgentDojo recorded the error ${log.error.slice(0, 3_900)} and scored the task without running its checks`,
    }),
    // Its tools' returns are final by AgentDojo's design, not by evidence in the log: the run says so.
    harnessDesign: "agentdojo",
    toolCalls,
    messages: transcriptOf(log),
    effects,
  } satisfies RunRecord);
  // The log's own values can exceed the record's limits (a tool name of 300 characters).
  if (!run.success) throw new SkippedLog(`its values do not fit the run record: ${firstIssue(run.error)}`);
  return {
    format: "agentdojo",
    evaluation: { name: `AgentDojo ${pipeline}`, harness: "agentdojo", benchmark: "AgentDojo", effectPolicy: agentDojoEffectPolicy() },
    runs: [run.data],
    notes,
    unknownTools: [...unknownTools],
    leftOut: [],
  };
}
