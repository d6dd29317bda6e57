// Where the recorder's events go: the live-run routes of a Boundary Lab instance (docs/recording.md, Live runs), and
// its tool-class suggestions to …/tool-suggestions. The run is opened before its first events are
// sent; a run already closed takes them as later evidence. Anything but a 2xx throws, so that the
// outbox keeps the batch and sends it again.
import { z } from "zod";
import { liveEventsAnswerSchema, type RecorderHeartbeatBody } from "../evaluations/live/live-run-schemas";
import type { ToolSuggestion } from "../evaluations/tool-suggestions";
import type { RecordedEvent } from "./observer";

export interface SinkOptions {
  api: string;
  apiKey: string;
  evaluationId: string;
  externalId: string;
  taskId: string;
  startedAt: string;
  /** This recorder's id among the run's recorders (its heartbeats'). */
  recorderId: string;
  /** What it records, e.g. "mcp stdio". */
  kind: string;
  log: (line: string) => void;
  fetch?: typeof fetch;
}

const errorAnswer = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export function boundaryLabSink(options: SinkOptions) {
  const send = options.fetch ?? fetch;
  const evaluation = `${options.api.replace(/\/$/, "")}/api/v1/evaluations/${encodeURIComponent(options.evaluationId)}`;
  const run = `${evaluation}/live-runs/${encodeURIComponent(options.externalId)}`;
  let opened = false;

  async function post(url: string, body: unknown, method = "POST"): Promise<{ status: number; json: unknown }> {
    const response = await send(url, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json().catch(() => null) };
  }
  const failure = (what: string, answer: { status: number; json: unknown }) => {
    const parsed = errorAnswer.safeParse(answer.json);
    return new Error(`${what}: ${answer.status}${parsed.success ? ` ${parsed.data.error.code}: ${parsed.data.error.message}` : ""}`);
  };

  async function open(): Promise<void> {
    if (opened) return;
    const answer = await post(`${evaluation}/live-runs`, {
      externalId: options.externalId,
      taskId: options.taskId,
      startedAt: options.startedAt,
    });
    const code = errorAnswer.safeParse(answer.json).data?.error.code;
    // A run closed already (scored, or stored unscored by its timeout) still takes events: later evidence.
    if (answer.status === 201 || code === "live_run_scored" || code === "live_run_expired") opened = true;
    else throw failure("opening the live run", answer);
  }

  return {
    open,
    async deliver(events: RecordedEvent[]): Promise<void> {
      await open();
      const answer = await post(`${run}/events`, { events });
      if (answer.status !== 200) throw failure("sending events", answer);
      // Refused events are refused for a reason sending them again will not change: said, not retried.
      for (const error of liveEventsAnswerSchema.parse(answer.json).errors) options.log(`Boundary Lab refused an event: ${error.message}`);
    },
    /** Says the recorder is alive and everything it observed up to `flushedThrough` has been delivered (`stopped` at its end). */
    async heartbeat(body: RecorderHeartbeatBody): Promise<void> {
      await open();
      const answer = await post(`${run}/recorders/${encodeURIComponent(options.recorderId)}`, { kind: options.kind, ...body }, "PUT");
      if (answer.status !== 200) throw failure("sending a heartbeat", answer);
    },
    async suggest(source: string, tools: ToolSuggestion[]): Promise<void> {
      const answer = await post(`${evaluation}/tool-suggestions`, { source, tools });
      if (answer.status !== 200) throw failure("sending tool suggestions", answer);
    },
  };
}
export type BoundaryLabSink = ReturnType<typeof boundaryLabSink>;
