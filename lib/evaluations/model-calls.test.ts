import { describe, expect, it } from "vitest";
import { modelCallTotals, modelCallText, placeModelCalls, type StoredModelCall } from "./model-calls";
import { runRecordSchema } from "./run-record-schema";

const stored = (position: number, fields: Partial<StoredModelCall> = {}): StoredModelCall => ({
  position,
  model: null,
  startedAt: null,
  durationMs: null,
  inputTokens: null,
  outputTokens: null,
  error: null,
  messagePosition: null,
  ...fields,
});

describe("a run's model-call sums", () => {
  it("add the tokens of the calls that report them, and stay unknown (null) when none does", () => {
    expect(
      modelCallTotals([{ inputTokens: 1_124, outputTokens: 23 }, { inputTokens: 60 }, { model: "openai/gpt-4o-mini", error: "timeout" }]),
    ).toEqual({ inputTokens: 1_184, outputTokens: 23, modelCalls: 3 });
    expect(modelCallTotals([{ model: "mockllm/model" }, { durationMs: 4 }])).toEqual({
      inputTokens: null,
      outputTokens: null,
      modelCalls: 2,
    });
    expect(modelCallTotals([{ inputTokens: 0, outputTokens: 0 }])).toEqual({ inputTokens: 0, outputTokens: 0, modelCalls: 1 });
  });

  it("are all unknown for a run that recorded no call", () => {
    expect(modelCallTotals(undefined)).toEqual({ inputTokens: null, outputTokens: null, modelCalls: null });
    expect(modelCallTotals([])).toEqual({ inputTokens: null, outputTokens: null, modelCalls: null });
  });
});

describe("where the transcript shows a model call", () => {
  it("beside the message it produced; the calls tied to none in time order, untimed ones last in the run's order", () => {
    const { byMessage, unplaced } = placeModelCalls([
      stored(0, { messagePosition: 1, error: "retry" }),
      stored(1, { messagePosition: 1 }),
      stored(2, { startedAt: "2026-12-01T10:00:05.000Z" }),
      stored(3),
      stored(4, { startedAt: "2026-12-01T10:00:01.000Z" }),
      stored(5, { messagePosition: 3 }),
    ]);
    expect([...byMessage].map(([message, calls]) => [message, calls.map((c) => c.position)])).toEqual([
      [1, [0, 1]],
      [3, [5]],
    ]);
    expect(unplaced.map((c) => c.position)).toEqual([4, 2, 3]);
  });

  it("in words: model, tokens in and out and duration, '?' or 'not recorded' where unknown, a failed attempt's error", () => {
    expect(modelCallText(stored(0, { model: "openai/gpt-4o-mini", inputTokens: 1_124, outputTokens: 23, durationMs: 1_235 }))).toBe(
      "openai/gpt-4o-mini · 1,124 tokens in, 23 out · 1.24 s",
    );
    expect(modelCallText(stored(0, { inputTokens: 7 }))).toBe("model not named · 7 tokens in, ? out · duration not recorded");
    expect(modelCallText(stored(0, { model: "mockllm/test", error: "_Transient('transient')" }))).toBe(
      "mockllm/test · tokens not recorded · duration not recorded; failed: _Transient('transient')",
    );
  });
});

describe("a run record's modelCalls", () => {
  const run = {
    externalId: "r1",
    taskId: "t1",
    startedAt: "2026-12-01T10:00:00.000Z",
    scoredAt: "2026-12-01T10:01:00.000Z",
    endpointLabel: "success",
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
  };
  const issues = (modelCalls: unknown) => {
    const parsed = runRecordSchema.safeParse({ ...run, modelCalls });
    return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join("."), i.message]);
  };

  it("takes every field, each optional, tied to an assistant message", () => {
    expect(
      issues([
        {
          model: "gpt-4o",
          startedAt: "2026-12-01T10:00:01.000Z",
          durationMs: 812.5,
          inputTokens: 100,
          outputTokens: 7,
          messagePosition: 1,
        },
        {},
        { error: "rate limited" },
      ]),
    ).toEqual([]);
  });

  it("refuses bad fields naming them", () => {
    expect(issues([{ inputTokens: -1 }])).toEqual([["modelCalls.0.inputTokens", "inputTokens must be at least 0"]]);
    expect(issues([{}, { outputTokens: 1.5 }])).toEqual([["modelCalls.1.outputTokens", "outputTokens must be a whole number"]]);
    expect(issues([{ durationMs: -3 }])).toEqual([["modelCalls.0.durationMs", "durationMs must be at least 0"]]);
    expect(issues([{ startedAt: "yesterday" }])[0]?.[0]).toBe("modelCalls.0.startedAt");
    expect(issues([{ tokens: 3 }])[0]?.[0]).toBe("modelCalls.0");
    expect(issues("many")[0]?.[0]).toBe("modelCalls");
    expect(issues([{ messagePosition: 0 }])).toEqual([
      ["modelCalls.0.messagePosition", "messagePosition must name an assistant message of messages (0-based): message 0 is a user message"],
    ]);
    expect(issues([{ messagePosition: 5 }])).toEqual([
      [
        "modelCalls.0.messagePosition",
        "messagePosition must name an assistant message of messages (0-based): message 5 is not in messages",
      ],
    ]);
  });
});
