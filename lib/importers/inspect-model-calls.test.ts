import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runRecordSchema, type RunRecord } from "../evaluations/run-record-schema";
import { INSPECT_LOGS, importLogFile } from "../testing/importer-fixtures";
import { inspectJsonOf } from "../testing/zip";
import { importInspectLog } from "./inspect";

// Inspect's model events, read from logs Inspect wrote (lib/testing/fixtures/inspect/README.md): each
// call's model, start, duration and tokens as the log holds them, tied to the assistant message it produced.
type ModelEvent = {
  event: string;
  model: string;
  timestamp: string;
  completed?: string | null;
  error?: string | null;
  output: { time?: number | null; usage?: { input_tokens: number; output_tokens: number } | null };
};
type Sample = { id: string | number; epoch: number; events: ModelEvent[]; messages: { role: string }[] };

const modelEvents = (sample: Sample) => sample.events.filter((e) => e.event === "model");
const assistantPositions = (run: RunRecord) => run.messages!.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
const runOf = (runs: RunRecord[], sample: Sample) => runs.find((r) => r.externalId.endsWith(`/${sample.id}/epoch ${sample.epoch}`))!;

describe("Inspect model events as the run's model calls", () => {
  it("a .json log (gpt-4o-mini): model, start, duration from `completed`, tokens from output.usage; each call tied to its message by id", () => {
    const path = `${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`;
    const document = JSON.parse(readFileSync(path, "utf8")) as { samples: Sample[] };
    const log = importInspectLog("inspect-json", document, document.samples);
    const [run] = log.runs;
    runRecordSchema.parse(run);
    const events = modelEvents(document.samples[0]!);
    expect(events).toHaveLength(5);
    expect(run!.modelCalls).toEqual(
      events.map((e, i) => ({
        model: "openai/gpt-4o-mini",
        startedAt: new Date(e.timestamp).toISOString(),
        durationMs: Date.parse(e.completed!) - Date.parse(e.timestamp),
        inputTokens: e.output.usage!.input_tokens,
        outputTokens: e.output.usage!.output_tokens,
        messagePosition: assistantPositions(run!)[i],
      })),
    );
    expect(run!.modelCalls![0]).toMatchObject({ inputTokens: 1_124, outputTokens: 23, durationMs: 1_235 });
  });

  it("an .eval log without `completed`: duration from output.time; ids that match no message tie calls to messages in order", async () => {
    const file = `${INSPECT_LOGS}tests_scorer_logs_2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval`;
    const log = await importLogFile(file);
    const document = (await inspectJsonOf(file)) as { samples: Sample[] };
    expect(log.runs).toHaveLength(10);
    for (const sample of document.samples) {
      const run = runOf(log.runs, sample);
      const [event] = modelEvents(sample);
      expect(run.modelCalls).toEqual([
        {
          model: "openai/gpt-4o-mini",
          startedAt: new Date(event!.timestamp).toISOString(),
          durationMs: event!.output.time! * 1_000,
          inputTokens: event!.output.usage!.input_tokens,
          outputTokens: event!.output.usage!.output_tokens,
          messagePosition: assistantPositions(run)[0],
        },
      ]);
    }
  });

  it("a retried call: each failed attempt is a call with its error, tied to the message of the call that succeeded", async () => {
    const log = await importLogFile(`${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`);
    const [run] = log.runs;
    const [assistant] = assistantPositions(run!);
    expect(run!.modelCalls!.map((c) => [c.model, c.error ?? null, c.messagePosition, c.durationMs !== undefined])).toEqual([
      ["mockllm/test", "_Transient('transient')", assistant, false],
      ["mockllm/test", "_Transient('transient')", assistant, false],
      ["mockllm/test", null, assistant, true],
    ]);
    expect(run!.modelCalls!.every((c) => c.inputTokens === undefined && c.outputTokens === undefined)).toBe(true);
  });

  it("Inspect 0.3.260's own log (mock model, no usage): every call without tokens, each tied to its assistant message by id", async () => {
    const file = `${INSPECT_LOGS}inspect-0.3.260_ledger_sigint_24-samples.eval`;
    const log = await importLogFile(file);
    const document = (await inspectJsonOf(file)) as { samples: Sample[] };
    expect(log.runs).toHaveLength(24);
    for (const sample of document.samples) {
      const run = runOf(log.runs, sample);
      const events = modelEvents(sample);
      expect(run.modelCalls!.map((c) => c.startedAt)).toEqual(events.map((e) => new Date(e.timestamp).toISOString()));
      expect(run.modelCalls!.map((c) => c.messagePosition)).toEqual(assistantPositions(run));
      expect(run.modelCalls!.every((c) => c.model === "mockllm/model" && c.inputTokens === undefined)).toBe(true);
    }
  });

  it("a log whose samples hold no model event (messages only) has no model calls", () => {
    const path = `${INSPECT_LOGS}tests_log_test_eval_log_log_tool_call_error.json`;
    const document = JSON.parse(readFileSync(path, "utf8")) as { samples: Sample[] };
    const log = importInspectLog("inspect-json", document, document.samples);
    expect(log.runs.map((r) => r.modelCalls)).toEqual(log.runs.map(() => undefined));
  });
});
