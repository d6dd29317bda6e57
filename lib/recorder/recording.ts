// What both recorder modes (stdio-proxy.ts, http-proxy.ts) do with what they observe: events to the
// outbox, tool-class suggestions to Boundary Lab (retried), and every task answered to a tool call
// polled with tasks/get until terminal (also after the agent has gone, within a bound), its result
// read once completed. How a request reaches the server is the mode's: the `Ask` it passes along.
import type { ToolSuggestion } from "../evaluations/tool-suggestions";
import type { BoundaryLabSink } from "./boundary-lab-sink";
import type { McpObserver, Observation } from "./observer";
import type { EventOutbox } from "./outbox";

/** One request of the recorder's own to the server: its result, or undefined when it failed or was not answered in time. */
export type Ask = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;

/** How the recorder reaches the server a task lives on (its connection, or its HTTP session while that lasts). */
export interface Channel {
  ask: Ask;
  isOpen(): boolean;
}

export interface RecordingOptions {
  outbox: EventOutbox;
  sink: Pick<BoundaryLabSink, "suggest">;
  /** How long a task is polled at the most (from its acknowledgement), also after the agent has gone. */
  pollBoundMs: number;
  /** Between polls, unless the task names its own pollInterval. */
  pollIntervalMs?: number;
  log: (line: string) => void;
}

/** The recorder's own request ids: never an agent's, and never forwarded to it. */
export const OWN_ID = "boundary-lab-recorder-";
export const ASK_TIMEOUT_MS = 10_000;
export const now = () => new Date().toISOString();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Recording {
  private readonly polls = new Set<Promise<void>>();
  private readonly suggestions = new Map<string, { source: string; suggestion: ToolSuggestion }>();
  private suggesting = false;
  private serverOpen = true;

  constructor(private readonly options: RecordingOptions) {}

  /** Records what `observer` made of one message; tasks it names are polled through `channel`. */
  record(observer: McpObserver, observation: Observation, channel: Channel): void {
    this.options.outbox.add(observation.events);
    for (const { taskId } of observation.poll) {
      const poll = this.pollTask(observer, taskId, channel).finally(() => this.polls.delete(poll));
      this.polls.add(poll);
    }
    if (observation.suggestions.length > 0) {
      for (const suggestion of observation.suggestions)
        this.suggestions.set(`${observer.serverName}\0${suggestion.tool}`, { source: `mcp:${observer.serverName}`, suggestion });
      void this.sendSuggestions();
    }
  }

  /** The server has gone: polling stops (its tasks' effects stay open). */
  serverClosed(): void {
    this.serverOpen = false;
  }

  get following(): number {
    return this.polls.size;
  }

  /** Waits for every task followed to settle (or run out of its bound); polling then stops. */
  async settle(): Promise<void> {
    await Promise.all([...this.polls]);
    this.serverOpen = false;
  }

  /** Sends the suggestions left and drains the outbox (within drainMs); what is left stays on disk. */
  async finish(drainMs: number): Promise<{ unsent: number }> {
    await this.sendSuggestions();
    const unsent = await this.options.outbox.drain(drainMs);
    this.options.outbox.close();
    if (unsent > 0) this.options.log(`${unsent} event(s) not sent yet: kept on disk; the next recorder of this run sends them`);
    return { unsent };
  }

  private async sendSuggestions(): Promise<void> {
    if (this.suggesting) return;
    this.suggesting = true;
    try {
      for (let attempt = 1; this.suggestions.size > 0 && attempt <= 5; attempt++) {
        const sources = new Set([...this.suggestions.values()].map(({ source }) => source));
        try {
          for (const source of sources) {
            const entries = [...this.suggestions.entries()].filter(([, entry]) => entry.source === source);
            await this.options.sink.suggest(
              source,
              entries.map(([, { suggestion }]) => suggestion),
            );
            for (const [key, entry] of entries) if (this.suggestions.get(key) === entry) this.suggestions.delete(key);
          }
        } catch (error) {
          this.options.log(`tool suggestions not sent (${(error as Error).message}); retrying`);
          await sleep(200 * 2 ** attempt);
        }
      }
    } finally {
      this.suggesting = false;
    }
  }

  private async pollTask(observer: McpObserver, taskId: string, { ask, isOpen }: Channel): Promise<void> {
    const until = Date.now() + this.options.pollBoundMs;
    let interval = this.options.pollIntervalMs ?? 250;
    const open = () => this.serverOpen && isOpen();
    while (open() && !observer.isSettled(taskId) && Date.now() < until) {
      await sleep(interval);
      const result = await ask("tasks/get", { taskId });
      if (typeof result?.pollInterval === "number" && result.pollInterval > 0) interval = Math.min(result.pollInterval, 10_000);
      if (result) this.options.outbox.add(observer.polled(taskId, result, now()).events);
    }
    if (!observer.isSettled(taskId)) this.options.log(`task ${taskId}: not terminal within the polling bound; its effect stays open`);
    // What a completed task wrote is in its result: the resources it links, touched when it was seen applied.
    const completedAt = observer.completedAt(taskId);
    if (completedAt && open())
      this.options.outbox.add(observer.taskResult(taskId, await ask("tasks/result", { taskId }), completedAt).events);
  }
}
