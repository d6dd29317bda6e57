import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runRecordSchema } from "../evaluations/run-record-schema";
import { HAND_MADE, INSPECT_LOGS, importLogFile } from "../testing/importer-fixtures";
import { importInspectLog } from "./inspect";
import { NO_SCORE_REASON, scoreAsNumber } from "./inspect-scores";

const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { samples?: unknown[] };
const importJson = (path: string, threshold?: number) => {
  const document = read(path);
  const log = importInspectLog("inspect-json", document, document.samples ?? [], { threshold });
  for (const run of log.runs) runRecordSchema.parse(run);
  return log;
};

describe("score values", () => {
  it("read the way Inspect's value_to_float reads them; lists, objects and other text are not labels", () => {
    expect([true, false, "C", "I", "P", "N", "yes", "No", "true", "FALSE", 0.7, "0.25", 3].map(scoreAsNumber)).toEqual([
      1, 0, 1, 0, 0.5, 0, 1, 0, 1, 0, 0.7, 0.25, 3,
    ]);
    expect([["C"], { a: 1 }, "maybe", "", null, Number.NaN].map(scoreAsNumber)).toEqual([null, null, null, null, null, null]);
  });
});

describe("Inspect .json logs", () => {
  it("with events and a score event: scored at the score event, tool calls from tool events with their start and completion", () => {
    const log = importJson(`${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`);
    expect(log.format).toBe("inspect-json");
    expect(log.evaluation).toMatchObject({ name: "Inspect browser · openai/gpt-4o-mini · XSogYfcZrx876NZYKz3Xf5", harness: "inspect" });
    expect(log.evaluation.effectPolicy).toBeUndefined(); // every tool unclassified
    const [run] = log.runs;
    expect(run).toMatchObject({
      externalId: "XSogYfcZrx876NZYKz3Xf5/1/epoch 1",
      taskId: "browser/1",
      attempt: 1,
      endpointLabel: "success",
      score: 1,
      threshold: 1,
    });
    expect(log.notes).toContain('score "C" read as 1: success at threshold 1');
    const document = read(`${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`) as {
      samples: { events: { event: string; timestamp: string; id?: string; completed?: string }[] }[];
    };
    const events = document.samples[0]!.events;
    const scoreEvent = events.filter((e) => e.event === "score").at(-1)!;
    expect(run!.scoredAt).toBe(new Date(scoreEvent.timestamp).toISOString());
    const toolEvents = events.filter((e) => e.event === "tool");
    expect(run!.toolCalls!.map((c) => c.callId)).toEqual(toolEvents.map((e) => e.id));
    expect(run!.effects!.map((e) => [e.effectId, e.requestedAt, e.acknowledgedAt, e.statusAtScoring])).toEqual(
      toolEvents.map((e) => [e.id, new Date(e.timestamp).toISOString(), new Date(e.completed!).toISOString(), "completed"]),
    );
    expect(run!.toolCalls![0]).toMatchObject({ tool: "web_browser_go", arguments: { url: "https://www.aisi.gov.uk/" } });
  });

  const BROWSER = `${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`;
  type BrowserLog = {
    samples: { events: { event: string; id?: string }[]; messages: { role: string; content?: unknown; tool_calls?: unknown[] | null }[] }[];
  } & Record<string, unknown>;
  const browserWith = (change: (sample: BrowserLog["samples"][number]) => void) => {
    const document = read(BROWSER) as BrowserLog;
    change(document.samples[0]!);
    const log = importInspectLog("inspect-json", document, document.samples, {});
    for (const run of log.runs) runRecordSchema.parse(run);
    return log.runs[0]!;
  };

  it("events without tool events (as the R package vitals writes them): the calls from the messages, answered, not lost", () => {
    const run = browserWith((sample) => (sample.events = sample.events.filter((e) => e.event !== "tool")));
    expect(run.toolCalls!.map((c) => [c.tool, c.outcome])).toEqual([
      ["web_browser_go", "ok"],
      ["web_browser_click", "ok"],
      ["web_browser_click", "ok"],
      ["web_browser_click", "ok"],
    ]);
    expect(run.effects!.map((e) => e.statusAtScoring)).toEqual(["completed", "completed", "completed", "completed"]);
  });

  it("a call the last model turn asked for, with no tool event or message (a limit ended the sample): not executed, and never counted twice", () => {
    const run = browserWith((sample) => {
      sample.messages[sample.messages.length - 1] = {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "call_after_limit", function: "web_browser_type", arguments: { element_id: 3, text: "x" } }],
      };
    });
    // The four tool events' calls once each (their messages carry the same ids), then the one only the messages hold.
    expect(run.toolCalls!.map((c) => c.callId)).toEqual([
      "call_35FTpd6shR9efioDgeEBZ33s",
      "call_O6fzXOPUvPtYflWdOH94RTWy",
      "call_53eNweGanOHt6jGWAo2UuNCG",
      "call_C0cGhnh5y5RCIBs9vTJCLgxW",
      "call_after_limit",
    ]);
    expect(run.effects!.at(-1)).toMatchObject({ effectId: "call_after_limit", tool: "web_browser_type", statusAtScoring: "not_executed" });
    expect(run.effects!.at(-1)!.acknowledgedAt).toBeUndefined();
    expect(run.toolCalls!.at(-1)).not.toHaveProperty("outcome");
  });

  it("partial credit: the log's own mean named beside the thresholded success rate, saying which is which", () => {
    const document = read(BROWSER) as BrowserLog & { results: { scores: unknown[] } };
    const sample = document.samples[0]! as unknown as { scores: Record<string, { value: unknown }>; events: { event: string }[] };
    sample.scores = { partial: { value: 0.577 } };
    sample.events = sample.events.filter((e) => e.event !== "score");
    document.results = { ...document.results, scores: [{ name: "partial", metrics: { mean: { name: "mean", value: 0.577 } } }] };
    const log = importInspectLog("inspect-json", document, document.samples, {});
    expect(log.runs[0]).toMatchObject({ endpointLabel: "failure", score: 0.577, threshold: 1 });
    expect(log.notes).toContain(
      "the log's own figures, as Inspect computed them: partial mean 0.577; the success rate here is another figure, the share of samples whose scorer partial's score is at or above 1 (1 sample(s) have partial credit, which a mean counts in part and the success rate as failures)",
    );
  });

  it("an older log with its timeline in `transcript`: scored at that score event", () => {
    const log = importJson(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`);
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]).toMatchObject({
      endpointLabel: "failure",
      score: 0,
      scoredAt: "2024-10-15T16:53:13.588Z",
      toolCalls: [],
      effects: [],
    });
  });

  it("without events and without scores: stored as an unscored run (no scoring time, no label), saying why and how to score it", () => {
    const log = importJson(`${INSPECT_LOGS}tests_log_test_eval_log_log_tool_call_error.json`);
    expect(log.leftOut).toEqual([]);
    // One sample (id 1, epoch 4) whose eleven tool messages answer no assistant call: eleven bash calls, each with its error.
    expect(log.runs).toHaveLength(1);
    const [run] = log.runs;
    expect(run).toMatchObject({ externalId: ".../1/epoch 4", attempt: 4, unscoredReason: NO_SCORE_REASON });
    expect(NO_SCORE_REASON).toMatch(/no score event and no score.*inspect score/);
    expect(run!.scoredAt).toBeUndefined();
    expect(run!.endpointLabel).toBeUndefined();
    expect(run!.score).toBeUndefined();
    expect(run!.toolCalls!.map((c) => c.callId)).toEqual(Array.from({ length: 11 }, (_, i) => `bash_${i + 1}`));
    expect(run!.effects!.slice(0, 2).map((e) => [e.statusAtScoring, e.notes])).toEqual([
      ["failed", "the call returned an error: parsing: ..."],
      ["failed", "the call returned an error: timeout: ..."],
    ]);
    expect(log.notes).toContain(
      "1 sample(s) have no readable score: stored as unscored runs (no endpoint label), counted on their own and in no rate",
    );
  });

  it("hand-made: without events, tool calls from messages (a tool message with no call stands for it, its error kept); status error; boolean score", () => {
    const log = importJson(`${HAND_MADE}inspect/messages-only.json`);
    const [run] = log.runs;
    expect(run).toMatchObject({
      externalId: "T1/s1/epoch 1",
      endpointLabel: "success",
      score: 1,
      startedAt: "2025-02-07T00:00:00.000Z",
      scoredAt: "2025-02-07T00:01:00.000Z",
    });
    expect(run!.effects!.map((e) => [e.effectId, e.tool, e.statusAtScoring, e.requestedAt])).toEqual([
      ["bash_1", "bash", "completed", "2025-02-07T00:00:00.000Z"],
      ["bash_2", "write_file", "unknown", "2025-02-07T00:00:00.000Z"],
      ["bash_3", "bash", "failed", "2025-02-07T00:00:00.000Z"],
    ]);
    expect(run!.effects![2]!.notes).toBe("the call returned an error: timeout: timed out");
    // The transcript keeps every message: the turn's two calls by their ids, each tool message with the call it answers.
    expect(run!.messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "bash_1", tool: "bash", arguments: { cmd: "ls" } },
          { id: "bash_2", tool: "write_file", arguments: { path: "a" } },
        ],
      },
      { role: "tool", content: "a b", toolCallId: "bash_1" },
      { role: "tool", content: "...", toolCallId: "bash_3" },
    ]);
    expect(log.notes).toContain("the log's status is error (RuntimeError: sandbox died): its samples are imported");
    expect(log.notes.some((n) => n.includes("no score event"))).toBe(true);
  });

  it("hand-made: cancelled log; numbers against the threshold, booleans, a list score and a sample with no score stored unscored; a call still running at scoring is pending; a repeated call id", () => {
    const log = importJson(`${HAND_MADE}inspect/events-cancelled.json`);
    expect(log.runs.map((r) => [r.externalId, r.endpointLabel, r.score, r.unscoredReason])).toEqual([
      ["T2/1/epoch 1", "failure", 0.7, undefined],
      ["T2/2/epoch 1", "success", 1, undefined],
      [
        "T2/3/epoch 1",
        undefined,
        undefined,
        'score ["C","I"] (scorer judge) is not a label, number or boolean: no endpoint label can be read from it',
      ],
      ["T2/4/epoch 1", undefined, undefined, NO_SCORE_REASON],
    ]);
    expect(log.runs.slice(2).map((r) => r.scoredAt)).toEqual([undefined, undefined]);
    expect(log.leftOut).toEqual([]);
    expect(log.notes).toContain(
      "2 sample(s) have no readable score: stored as unscored runs (no endpoint label), counted on their own and in no rate",
    );
    const [first] = log.runs;
    // The intermediate score event at :09 is not the scoring; the final one at :20 is.
    expect(first!.scoredAt).toBe("2025-03-01T09:00:20.250Z");
    expect(first!.effects!.map((e) => [e.effectId, e.statusAtScoring])).toEqual([
      ["c1", "pending"],
      ["call-1", "failed"],
      ["call-2", "completed"],
    ]);
    expect(log.notes).toContain("the log's status is cancelled: its samples are imported");
    expect(importJson(`${HAND_MADE}inspect/events-cancelled.json`, 0.5).runs.map((r) => [r.endpointLabel, r.threshold])).toEqual([
      ["success", 0.5],
      ["success", 0.5],
      // Unscored runs keep the threshold too: another scorer of theirs is counted against it.
      [undefined, 0.5],
      [undefined, 0.5],
    ]);
  });

  it("a sample whose id does not fit the run record is left out, saying why; the others are runs", () => {
    const header = {
      version: 2,
      status: "success",
      eval: { task: "t", task_id: "T" },
      stats: { started_at: "2025-01-01T00:00:00Z", completed_at: "2025-01-01T00:01:00Z" },
    };
    const sample = (id: string) => ({ id, epoch: 1, scores: { s: { value: "C" } } });
    const log = importInspectLog("inspect-json", header, [sample("x".repeat(300)), sample("short")]);
    expect(log.runs.map((r) => r.externalId)).toEqual(["T/short/epoch 1"]);
    expect(log.leftOut).toEqual([
      {
        sample: `${"x".repeat(300)} epoch 1`,
        reason: expect.stringMatching(/^its values do not fit the run record: externalId: externalId must be at most 200 characters/),
      },
    ]);
  });

  it("an unknown version or a broken header: skipped, saying which", () => {
    expect(() => importInspectLog("inspect-json", { version: 9, status: "success", eval: { task: "t" } }, [])).toThrow(
      /version 9 is unknown/,
    );
    expect(() => importInspectLog("inspect-json", { version: 2, status: "success", eval: {} }, [])).toThrow(/eval\.task/);
    expect(() => importInspectLog("inspect-json", { version: 2, status: "started", eval: { task: "t" } }, [])).toThrow(
      /no samples \(status started\)/,
    );
  });
});

describe("Inspect .eval archives", () => {
  it("with events and score events, several epochs: one run per (sample, epoch)", async () => {
    const log = await importLogFile(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`);
    expect(log.format).toBe("inspect-eval");
    expect(log.runs.map((r) => [r.externalId, r.attempt, r.endpointLabel]).sort()).toEqual([
      ["WckPjG7ovQZLAiZF2fZpog/1/epoch 1", 1, "failure"],
      ["WckPjG7ovQZLAiZF2fZpog/1/epoch 2", 2, "success"],
      ["WckPjG7ovQZLAiZF2fZpog/2/epoch 1", 1, "success"],
      ["WckPjG7ovQZLAiZF2fZpog/2/epoch 2", 2, "success"],
    ]);
  });

  it("version 3 header, tool events: five bash calls completed before scoring", async () => {
    const log = await importLogFile(`${INSPECT_LOGS}tests_log_test_eval_log_log_message_deduplication.eval`);
    const [run] = log.runs;
    expect(run).toMatchObject({ endpointLabel: "failure", score: 0, scoredAt: "2025-10-06T10:15:45.729Z" });
    expect(run!.effects!.map((e) => [e.effectId, e.tool, e.statusAtScoring])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`hardcoded_${i}`, "bash", "completed"]),
    );
    // Each call answered without an error: its outcome is ok (for the legal-action rate).
    expect(run!.toolCalls![0]).toEqual({
      tool: "bash",
      callId: "hardcoded_0",
      at: "2025-10-06T10:15:45.377Z",
      arguments: { cmd: "ls" },
      outcome: "ok",
    });
  });

  it("no score event in any sample: each of its ten samples stored as an unscored run", async () => {
    const log = await importLogFile(`${INSPECT_LOGS}tests_scorer_logs_2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval`);
    expect(log.runs.map((r) => r.externalId).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `dPiJifoWeEQBrfWsAopzWr/${i + 1}/epoch 1`).sort(),
    );
    expect(new Set(log.runs.map((r) => r.unscoredReason))).toEqual(new Set([NO_SCORE_REASON]));
    expect(log.runs.every((r) => r.scoredAt === undefined && r.endpointLabel === undefined && r.toolCalls!.length === 0)).toBe(true);
    expect(log.leftOut).toEqual([]);
  });

  it("hand-made: a running evaluation (no header.json yet) is read from its journal's start, status started", async () => {
    const log = await importLogFile(`${HAND_MADE}inspect/running.eval`);
    expect(log.runs.map((r) => [r.externalId, r.attempt, r.endpointLabel, r.scoredAt])).toEqual([
      ["T3/7/epoch 2", 2, "success", "2025-04-01T09:00:03.000Z"],
    ]);
    expect(log.notes).toContain("the log's status is started: its samples are imported");
  });

  it("hand-made: a zip without header.json or a journal: skipped", async () => {
    await expect(importLogFile(`${HAND_MADE}inspect/no-header.eval`)).rejects.toThrow(
      "a zip archive with Inspect sample entries (samples/7_epoch_2.json) but no header.json or _journal/start.json: an Inspect .eval log missing its header",
    );
  });
});
