// What the MCP recorder reads from the traffic it passes on (docs/recording.md, The MCP recorder), pure: each JSON-RPC
// message between the agent and its MCP server, with the time it passed, becomes live-run events
// (lib/evaluations/live/live-run-schemas.ts), tasks to poll, and tool-class suggestions. It never changes a
// message: the proxy forwards every one as it came (stdio-proxy.ts).
//
// - tools/list: each tool's annotations; read-only → read_only, open-world → external, otherwise
//   sync_confirmed until one of its calls is answered with a task (then async_handle).
// - tools/call: an effect requested at the request (callId the JSON-RPC id, its arguments); at the
//   answer a status, the server's word and never evidence: failed for an error, pending with the
//   task's id as handle for a task (MCP 2025-11-25 tasks), completed otherwise. Resources the answer links are touches (a task's, from
//   its result once completed: written when it was applied).
// - a task's status (tasks/get answers, the recorder's own polls, notifications/tasks/status): evidence
//   read by the effect's handle, with its source; working and input_required are pending; completed,
//   failed and cancelled are terminal.
// - resources/read: a touch (read) of its URI.
import type { ToolSuggestion } from "../evaluations/tool-suggestions";

export type JsonRpcMessage = {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
};

/** An event as the live-run route takes it (without the run: the sender adds nothing). */
export type RecordedEvent = Record<string, unknown> & { eventId: string; type: string; at: string };

export interface Observation {
  events: RecordedEvent[];
  /** Tasks the recorder should poll with tasks/get until terminal. */
  poll: { taskId: string; effectId: string }[];
  /** Suggestions changed by this message (sent to …/tool-suggestions). */
  suggestions: ToolSuggestion[];
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const statusOfTask = (status: unknown): "pending" | "completed" | "failed" | "cancelled" | "unknown" =>
  status === "working" || status === "input_required"
    ? "pending"
    : status === "completed" || status === "failed" || status === "cancelled"
      ? status
      : "unknown";

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);
const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export class McpObserver {
  /** The MCP server's name from its initialize answer: the suggestions' source. */
  serverName = "server";
  private readonly pending = new Map<string, { method: string; params: Record<string, unknown>; at: string }>();
  private readonly effectOfCall = new Map<string, string>();
  private readonly effectOfTask = new Map<string, string>();
  private readonly toolOfEffect = new Map<string, string>();
  private readonly completed = new Map<string, string>();
  private readonly lastStatus = new Map<string, string>();
  private readonly statusCount = new Map<string, number>();
  private readonly tools = new Map<string, ToolSuggestion>();
  private readonly usedEffectIds = new Set<string>();
  private touches = 0;

  /** `idPrefix` keeps apart the ids of several observers of one run (the HTTP recorder's sessions). */
  constructor(private readonly idPrefix = "") {}

  /** A message the agent sent towards the server. */
  fromAgent(message: JsonRpcMessage, at: string): Observation {
    const observation: Observation = { events: [], poll: [], suggestions: [] };
    if (message.id === undefined || typeof message.method !== "string") return observation;
    const key = String(message.id);
    const params = record(message.params) ?? {};
    this.pending.set(key, { method: message.method, params, at });
    if (message.method === "tools/call") {
      const effectId = this.newEffectId(`call-${key}`);
      this.effectOfCall.set(key, effectId);
      this.toolOfEffect.set(effectId, text(params.name) ?? "unnamed tool");
      const args = record(params.arguments);
      observation.events.push({
        eventId: `${effectId}-requested`,
        type: "effect_requested",
        at,
        effectId,
        tool: text(params.name) ?? "unnamed tool",
        callId: key,
        ...(args && { arguments: args }),
      });
    } else if (message.method === "resources/read" && text(params.uri)) {
      observation.events.push(this.touch(text(params.uri)!, "read", at));
    }
    return observation;
  }

  /** A message the server sent towards the agent. */
  fromServer(message: JsonRpcMessage, at: string): Observation {
    const observation: Observation = { events: [], poll: [], suggestions: [] };
    if (message.method === "notifications/tasks/status") {
      const params = record(message.params) ?? {};
      this.taskStatus(text(params.taskId), params.status, at, observation, "MCP notifications/tasks/status");
      return observation;
    }
    if (message.id === undefined) return observation;
    const key = String(message.id);
    const request = this.pending.get(key);
    if (!request) return observation;
    this.pending.delete(key);
    const result = record(message.result);
    if (request.method === "initialize") this.serverName = text(record(result?.serverInfo)?.name) ?? this.serverName;
    else if (request.method === "tools/list") this.listTools(result, observation);
    else if (request.method === "tools/call") this.callAnswered(key, request, message, at, observation);
    else if (request.method === "tasks/get")
      this.taskStatus(text(request.params.taskId), result?.status, at, observation, "MCP tasks/get (the agent's)");
    return observation;
  }

  /**
   * The server's answer to the agent's request `id` passed on unread (too large to read): a tool call is
   * completed (failed when its end says isError) as the server's word, with a note that it was not read.
   */
  unreadAnswer(id: string | number, detail: string, isError: boolean, at: string): Observation {
    return this.settleCall(id, isError ? "failed" : "completed", detail, at);
  }

  /** The agent's request `id` will never be answered (the server went first): a tool call's outcome is unknown, and says why. */
  unanswered(id: string | number, detail: string, at: string): Observation {
    return this.settleCall(id, "unknown", detail, at);
  }

  /** Ends the agent's pending request `id` without reading an answer: a tool call gets `status` (the harness's word) with `detail`. */
  private settleCall(id: string | number, status: "completed" | "failed" | "unknown", detail: string, at: string): Observation {
    const observation: Observation = { events: [], poll: [], suggestions: [] };
    const key = String(id);
    const request = this.pending.get(key);
    if (!request) return observation;
    this.pending.delete(key);
    const effectId = this.effectOfCall.get(key);
    if (request.method === "tools/call" && effectId) push(observation, this.status(effectId, status, at, { detail }));
    return observation;
  }

  /** The answer to one of the recorder's own tasks/get polls. */
  polled(taskId: string, result: Record<string, unknown> | undefined, at: string): Observation {
    const observation: Observation = { events: [], poll: [], suggestions: [] };
    this.taskStatus(taskId, result?.status, at, observation, "MCP tasks/get (the recorder's poll)");
    return observation;
  }

  /** The result of a completed task (the recorder's own tasks/result): the resources it links are touches at `at`, when it was applied. */
  taskResult(taskId: string, result: Record<string, unknown> | undefined, at: string): Observation {
    const observation: Observation = { events: [], poll: [], suggestions: [] };
    const effectId = this.effectOfTask.get(taskId);
    if (effectId) this.linkedResources(this.toolOfEffect.get(effectId) ?? "", result, at, observation);
    return observation;
  }

  /** When the task's effect was seen completed, if it was. */
  completedAt(taskId: string): string | undefined {
    const effectId = this.effectOfTask.get(taskId);
    return effectId === undefined ? undefined : this.completed.get(effectId);
  }

  /** Whether the task's effect reached a terminal status (its polling can stop). */
  isSettled(taskId: string): boolean {
    const effectId = this.effectOfTask.get(taskId);
    return effectId !== undefined && TERMINAL.has(this.lastStatus.get(effectId) ?? "");
  }

  private newEffectId(base: string): string {
    let id = `${this.idPrefix}${base}`;
    for (let n = 2; this.usedEffectIds.has(id); n++) id = `${this.idPrefix}${base}-${n}`;
    this.usedEffectIds.add(id);
    return id;
  }

  private touch(surface: string, op: "read" | "write", at: string): RecordedEvent {
    return { eventId: `${this.idPrefix}touch-${++this.touches}`, type: "touch", at, surface, op };
  }

  private status(effectId: string, status: string, at: string, extra: Record<string, unknown> = {}): RecordedEvent | null {
    if (this.lastStatus.get(effectId) === status || TERMINAL.has(this.lastStatus.get(effectId) ?? "")) return null;
    this.lastStatus.set(effectId, status);
    if (status === "completed") this.completed.set(effectId, at);
    const n = (this.statusCount.get(effectId) ?? 0) + 1;
    this.statusCount.set(effectId, n);
    return { eventId: `${effectId}-status-${n}`, type: "effect_status", at, effectId, status, ...extra };
  }

  private listTools(result: Record<string, unknown> | undefined, observation: Observation) {
    const tools = Array.isArray(result?.tools) ? result.tools : [];
    for (const item of tools) {
      const tool = record(item);
      const name = text(tool?.name);
      if (!name) continue;
      const hints = record(tool?.annotations) ?? {};
      const annotations = Object.fromEntries(
        (["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
          .filter((hint) => typeof hints[hint] === "boolean")
          .map((hint) => [hint, hints[hint] as boolean]),
      );
      const known = this.tools.get(name);
      const suggestion: ToolSuggestion =
        known?.suggestedClass === "async_handle"
          ? { ...known, annotations }
          : hints.readOnlyHint === true
            ? { tool: name, suggestedClass: "read_only", reason: "annotated readOnlyHint", annotations }
            : hints.openWorldHint === true
              ? { tool: name, suggestedClass: "external", reason: "annotated openWorldHint: it reaches outside the server", annotations }
              : {
                  tool: name,
                  suggestedClass: "sync_confirmed",
                  reason: "not read-only and not open-world; its calls answer with their result",
                  annotations,
                };
      this.tools.set(name, suggestion);
      observation.suggestions.push(suggestion);
    }
  }

  private callAnswered(
    key: string,
    request: { params: Record<string, unknown> },
    message: JsonRpcMessage,
    at: string,
    observation: Observation,
  ) {
    const effectId = this.effectOfCall.get(key)!;
    const tool = text(request.params.name) ?? "unnamed tool";
    const result = record(message.result);
    const task = record(result?.task);
    const taskId = text(task?.taskId);
    // The call's answer is the server's word about its own call, never evidence: it proves an effect terminal only for a sync_confirmed tool.
    if (message.error || !result) {
      push(observation, this.status(effectId, "failed", at, { detail: errorDetail(message.error) }));
    } else if (taskId) {
      this.effectOfTask.set(taskId, effectId);
      push(observation, this.status(effectId, statusOfTask(task?.status), at, { handle: taskId }));
      if (!this.isSettled(taskId)) observation.poll.push({ taskId, effectId });
      if (this.tools.get(tool)?.suggestedClass !== "async_handle") {
        const suggestion: ToolSuggestion = {
          ...this.tools.get(tool),
          tool,
          suggestedClass: "async_handle",
          reason: "a call was answered with a task (acknowledged before applied); the task's id is its handle",
        };
        this.tools.set(tool, suggestion);
        observation.suggestions.push(suggestion);
      }
    } else {
      push(
        observation,
        this.status(
          effectId,
          result.isError === true ? "failed" : "completed",
          at,
          result.isError === true ? { detail: "the tool answered isError" } : {},
        ),
      );
    }
    if (!taskId) this.linkedResources(tool, result, at, observation);
  }

  /** Resources a tool's result links or embeds: read by a read-only tool, written by any other. */
  private linkedResources(tool: string, result: Record<string, unknown> | undefined, at: string, observation: Observation) {
    const readOnly = this.tools.get(tool)?.suggestedClass === "read_only";
    for (const item of Array.isArray(result?.content) ? result.content : []) {
      const content = record(item);
      const uri =
        content?.type === "resource_link"
          ? text(content.uri)
          : content?.type === "resource"
            ? text(record(content.resource)?.uri)
            : undefined;
      if (uri) observation.events.push(this.touch(uri, readOnly ? "read" : "write", at));
    }
  }

  /** A task's status read by its id (the effect's handle): evidence, with how it was read as its source. */
  private taskStatus(taskId: string | undefined, status: unknown, at: string, observation: Observation, source: string) {
    const effectId = taskId ? this.effectOfTask.get(taskId) : undefined;
    if (!effectId) return;
    push(observation, this.status(effectId, statusOfTask(status), at, { evidence: { task: taskId, status }, source }));
  }
}

const errorDetail = (error: JsonRpcMessage["error"]): string =>
  error ? `JSON-RPC error ${error.code ?? "(no code)"}: ${(error.message ?? "(no message)").slice(0, 3_900)}` : "answered with no result";

const push = (observation: Observation, event: RecordedEvent | null) => {
  if (event) observation.events.push(event);
};
