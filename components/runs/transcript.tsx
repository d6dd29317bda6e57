import { Badge, type Tone } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { formatElapsed } from "@/lib/format/time";
import { modelCallText, type StoredModelCall } from "@/lib/evaluations/model-calls";
import type { RunMessagesPage } from "@/lib/evaluations/read/run-messages";
import type { MessageRecord } from "@/lib/evaluations/run-record-schema";

/** Longer texts show their first part and open the rest on request (a fetched page as a tool's output). */
const SHOWN_CHARACTERS = 1_200;

const ROLE_TONES: Record<MessageRecord["role"], Tone> = { system: "neutral", user: "info", assistant: "success", tool: "warning" };

/** What the audit says of the effect a tool call made: its class, status at scoring and open interval (in words). */
export interface CallAudit {
  effectId: string;
  cls: string;
  statusAtScoring: string;
  interval: string;
}

function Text({ content, testId }: { content: string; testId?: string }) {
  if (content === "") return <p className="text-sm text-muted-foreground italic">(no text)</p>;
  if (content.length <= SHOWN_CHARACTERS)
    return (
      <pre className="font-sans text-sm whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid={testId}>
        {content}
      </pre>
    );
  return (
    <details data-testid={testId}>
      <summary className="cursor-pointer">
        <pre className="inline font-sans text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{content.slice(0, SHOWN_CHARACTERS)}</pre>
        <span className="block text-sm text-muted-foreground">… show all {content.length.toLocaleString("en-US")} characters</span>
      </summary>
      <pre className="font-sans text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{content.slice(SHOWN_CHARACTERS)}</pre>
    </details>
  );
}

/** A model call in one line: when it started (from the run's start), its model, tokens in and out, and duration. */
function ModelCallLine({ call, startMs }: { call: StoredModelCall; startMs: number }) {
  return (
    <p
      className={`text-sm ${call.error === null ? "text-muted-foreground" : "text-warning"} [overflow-wrap:anywhere]`}
      data-testid="transcript-model-call"
    >
      <span className="tabular-nums">
        {call.startedAt === null ? "time not recorded" : formatElapsed(Date.parse(call.startedAt) - startMs)}
      </span>{" "}
      model call: {modelCallText(call)}
    </p>
  );
}

/** Where the run's model calls show: beside the message each produced, and those tied to no message in time order. */
export interface TranscriptModelCalls {
  byMessage: ReadonlyMap<number, StoredModelCall[]>;
  unplaced: StoredModelCall[];
  /** The run's start, which each call's time counts from. */
  startMs: number;
}

/**
 * The run's conversation as the harness logged it, like Inspect View's sample view: each message
 * with its role, an assistant's tool calls inline with the audit of the effect each made beside it
 * (class, status at scoring, open interval), and each tool message tied to the call it answers. Long
 * texts collapse; a long conversation is paged (`pageHref(from)`). Each model call shows inline, with
 * the assistant message it produced; calls tied to no message are listed after the page, in time order.
 */
export function Transcript({
  page,
  audits,
  pageHref,
  modelCalls = { byMessage: new Map(), unplaced: [], startMs: 0 },
}: {
  page: RunMessagesPage;
  /** The effect each tool call made, by call id. */
  audits: ReadonlyMap<string, CallAudit>;
  pageHref: (from: number) => string;
  modelCalls?: TranscriptModelCalls;
}) {
  const unplaced =
    modelCalls.unplaced.length === 0 ? null : (
      <div className="space-y-1 rounded-lg border border-border bg-card p-3" data-testid="transcript-unplaced-model-calls">
        <p className="text-sm">
          {page.messageCount === 0 ? "The run's model calls" : "Model calls tied to no message of the log"} ({modelCalls.unplaced.length})
        </p>
        {modelCalls.unplaced.map((call) => (
          <ModelCallLine key={call.position} call={call} startMs={modelCalls.startMs} />
        ))}
      </div>
    );
  if (page.messageCount === 0)
    return unplaced ? (
      <div className="space-y-3" data-testid="transcript">
        <p className="text-sm text-muted-foreground">The log holds no conversation for this run.</p>
        {unplaced}
      </div>
    ) : (
      <EmptyState title="The log holds no conversation for this run" />
    );
  const first = page.messages[0]?.position ?? 0;
  const last = page.messages.at(-1)?.position ?? first;
  return (
    <div className="space-y-3" data-testid="transcript">
      <p className="text-sm text-muted-foreground">
        Messages {first + 1}–{last + 1} of {page.messageCount}
      </p>
      <ol className="space-y-3">
        {page.messages.map((m) => (
          <li key={m.position} className="space-y-2 rounded-lg border border-border bg-card p-3" data-testid="transcript-message">
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <Badge tone={ROLE_TONES[m.role]}>{m.role}</Badge>
              <span className="text-muted-foreground">#{m.position + 1}</span>
              {m.toolCallId ? (
                <span className="text-muted-foreground">
                  answers <code>{m.toolCallId}</code>
                </span>
              ) : null}
            </div>
            {(modelCalls.byMessage.get(m.position) ?? []).map((call) => (
              <ModelCallLine key={call.position} call={call} startMs={modelCalls.startMs} />
            ))}
            <Text content={m.content} testId="transcript-content" />
            {(m.toolCalls ?? []).map((call) => {
              const audit = audits.get(call.id);
              return (
                <div key={call.id} className="rounded-md border border-border p-2 text-sm" data-testid="transcript-tool-call">
                  <p>
                    calls <code>{call.tool}</code> <span className="text-muted-foreground">({call.id})</span>
                  </p>
                  {call.arguments !== undefined ? (
                    <pre className="mt-1 text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">
                      {JSON.stringify(call.arguments, null, 1)}
                    </pre>
                  ) : null}
                  <p className="mt-1 text-muted-foreground" data-testid="transcript-call-audit">
                    {audit
                      ? `effect ${audit.effectId}: ${audit.cls}, ${audit.statusAtScoring} at scoring; ${audit.interval}`
                      : "no effect recorded (a read, or a call the audit does not count)"}
                  </p>
                </div>
              );
            })}
          </li>
        ))}
      </ol>
      {unplaced}
      <nav aria-label="Pages of the transcript" className="flex flex-wrap gap-3 text-sm">
        {first > 0 ? <a href={pageHref(Math.max(0, first - (last - first + 1)))}>Earlier messages</a> : null}
        {page.nextMessagesFrom !== null ? (
          <a href={pageHref(page.nextMessagesFrom)} rel="next">
            Later messages ({page.messageCount - page.nextMessagesFrom} more)
          </a>
        ) : null}
      </nav>
    </div>
  );
}
