import { readFileSync } from "node:fs";
import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { at } from "../lib/testing/evaluation-example";
import { INSPECT_LOGS } from "../lib/testing/importer-fixtures";

// A run's model calls in Chromium: an Inspect log imported through the page shows each call inline in
// the transcript, with the assistant message it produced (model, tokens in and out, duration, its time
// from the run's start), and their sums in the run's facts; a run with calls tied to no message lists them.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

const BROWSER_LOG = `${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`;

test("an imported Inspect run shows each model call inline with the message it produced, and their sums", async ({ page }) => {
  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles(BROWSER_LOG);
  await page.getByLabel("Evaluation (optional)").fill("model calls (e2e)");
  await page.getByTestId("import-submit").click();
  await page.getByTestId("import-evaluations").getByRole("link", { name: "model calls (e2e)" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").at(-1)!;

  // What the log says of its calls, to read the page against.
  type Event = { event: string; timestamp: string; completed: string; output: { usage: { input_tokens: number; output_tokens: number } } };
  const log = JSON.parse(readFileSync(BROWSER_LOG, "utf8")) as { samples: { events: Event[]; messages: { role: string }[] }[] };
  const calls = log.samples[0]!.events.filter((e) => e.event === "model");
  const input = calls.reduce((sum, e) => sum + e.output.usage.input_tokens, 0);
  const output = calls.reduce((sum, e) => sum + e.output.usage.output_tokens, 0);

  await page.goto(`/evaluations/${id}/runs/${encodeURIComponent("XSogYfcZrx876NZYKz3Xf5/1/epoch 1")}`);
  await expect(page.getByTestId("run-model-calls")).toHaveText(
    `${calls.length}; tokens in ${input.toLocaleString("en-US")}, out ${output.toLocaleString("en-US")}`,
  );
  const transcript = page.getByTestId("transcript");
  const lines = transcript.getByTestId("transcript-model-call");
  await expect(lines).toHaveCount(calls.length);
  // Each line sits in an assistant message, in order: the first call's is the first assistant message's.
  const firstAssistant = transcript.getByTestId("transcript-message").filter({ hasText: "assistant" }).first();
  await expect(firstAssistant.getByTestId("transcript-model-call")).toHaveText(
    /^\+[\d.]+ (ms|s) model call: openai\/gpt-4o-mini · 1,124 tokens in, 23 out · 1\.24 s$/,
  );
  for (const [i, call] of calls.entries())
    await expect(lines.nth(i)).toContainText(
      `${call.output.usage.input_tokens.toLocaleString("en-US")} tokens in, ${call.output.usage.output_tokens} out`,
    );
  expect(await seriousViolations(page)).toEqual([]);
});

test("a run whose model calls are tied to no message lists them in time order, a failed attempt with its error", async ({ page }) => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: `model calls without messages (e2e) ${Date.now()}` });
  await client.ingestRuns(id, [
    {
      externalId: "traced",
      taskId: "t",
      startedAt: at(0),
      scoredAt: at(10),
      endpointLabel: "success",
      modelCalls: [
        { model: "gpt-4o", startedAt: at(3), durationMs: 250, inputTokens: 1_300, outputTokens: 12 },
        { model: "gpt-4o", startedAt: at(1), durationMs: 500, error: "429 rate limited" },
      ],
    },
  ]);
  await page.goto(`/evaluations/${id}/runs/traced`);
  const unplaced = page.getByTestId("transcript-unplaced-model-calls");
  await expect(unplaced).toContainText("The run's model calls (2)");
  await expect(unplaced.getByTestId("transcript-model-call")).toHaveText([
    "+1.00 s model call: gpt-4o · tokens not recorded · 500 ms; failed: 429 rate limited",
    "+3.00 s model call: gpt-4o · 1,300 tokens in, 12 out · 250 ms",
  ]);
  await expect(page.getByTestId("run-model-calls")).toHaveText("2; tokens in 1,300 (1/2 calls), out 12 (1/2 calls)");
  expect(await seriousViolations(page)).toEqual([]);
});
