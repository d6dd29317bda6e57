// The messages a log holds, as the run's transcript (docs/evaluations.md, Transcripts): each importer maps its harness's
// message shape to lib/evaluations/run-record-schema.ts's messageSchema with these helpers. Pure.
import { MAX_RUN_MESSAGES, MESSAGE_CONTENT_MAX, MESSAGE_ROLES, type MessageRecord } from "../evaluations/run-record-schema";

/** Text cut to the limit a message holds, saying so (a fetched page as a tool's output can run to megabytes). */
export function boundedContent(text: string): string {
  if (text.length <= MESSAGE_CONTENT_MAX) return text;
  const note = `\n… [cut: ${text.length.toLocaleString("en-US")} characters in the log]`;
  return text.slice(0, MESSAGE_CONTENT_MAX - note.length) + note;
}

/**
 * A harness's content as text: a string as it is; a list of parts (AgentDojo's and Inspect's newer
 * `[{type: "text", text|content}, …]`) as its text parts joined, other parts (an image, a reasoning
 * block) named by their type.
 */
export function contentText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => {
        if (typeof part === "string") return part;
        if (part && typeof part === "object") {
          const {
            type,
            text,
            content: inner,
            reasoning,
          } = part as { type?: unknown; text?: unknown; content?: unknown; reasoning?: unknown };
          if (typeof text === "string") return text;
          if (typeof inner === "string") return inner;
          if (typeof reasoning === "string") return `[reasoning] ${reasoning}`;
          return `[${typeof type === "string" ? type : "part"}]`;
        }
        return "";
      })
      .join("\n");
  return JSON.stringify(content);
}

export const roleOf = (role: string): MessageRecord["role"] | null =>
  (MESSAGE_ROLES as readonly string[]).includes(role) ? (role as MessageRecord["role"]) : null;

/** At most MAX_RUN_MESSAGES: a longer conversation keeps its first ones and ends with a note of how many more the log holds. */
export function boundedMessages(messages: MessageRecord[]): MessageRecord[] {
  if (messages.length <= MAX_RUN_MESSAGES) return messages;
  const kept = messages.slice(0, MAX_RUN_MESSAGES - 1);
  return [...kept, { role: "system", content: `… ${messages.length - kept.length} more messages in the log are not kept` }];
}
