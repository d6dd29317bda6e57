import { describe, expect, it } from "vitest";
import { MAX_RUN_MESSAGES, MESSAGE_CONTENT_MAX } from "../evaluations/run-record-schema";
import { boundedContent, boundedMessages, contentText, roleOf } from "./transcript";

describe("transcripts from logs", () => {
  it("reads a string, a list of parts (text, content, reasoning) and names other parts by type", () => {
    expect(contentText("plain")).toBe("plain");
    expect(contentText(null)).toBe("");
    expect(
      contentText([
        { type: "text", text: "Inspect's text" },
        { type: "text", content: "AgentDojo's text" },
        { type: "reasoning", reasoning: "thinking" },
        { type: "image", image: "data:..." },
      ]),
    ).toBe("Inspect's text\nAgentDojo's text\n[reasoning] thinking\n[image]");
    expect(contentText({ odd: 1 })).toBe('{"odd":1}');
  });

  it("cuts a text over the limit and says how long it was", () => {
    const long = "x".repeat(MESSAGE_CONTENT_MAX + 5);
    const cut = boundedContent(long);
    expect(cut).toHaveLength(MESSAGE_CONTENT_MAX);
    expect(cut.endsWith(`[cut: ${(MESSAGE_CONTENT_MAX + 5).toLocaleString("en-US")} characters in the log]`)).toBe(true);
    expect(boundedContent("short")).toBe("short");
  });

  it("keeps at most the limit of messages, the last one saying how many more the log holds", () => {
    const many = Array.from({ length: MAX_RUN_MESSAGES + 10 }, (_, i) => ({ role: "user" as const, content: String(i) }));
    const kept = boundedMessages(many);
    expect(kept).toHaveLength(MAX_RUN_MESSAGES);
    expect(kept.at(-1)).toEqual({ role: "system", content: "… 11 more messages in the log are not kept" });
  });

  it("knows the four roles and no other", () => {
    expect(["system", "user", "assistant", "tool", "developer"].map(roleOf)).toEqual(["system", "user", "assistant", "tool", null]);
  });
});
