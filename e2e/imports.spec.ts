import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { accounts, bearer } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { MAX_UPLOAD_BYTES } from "../lib/importers/import-upload";
import { importReportSchema } from "../lib/importers/report";
import { AGENTDOJO_RUNS, INSPECT_LOGS } from "../lib/testing/importer-fixtures";
import { writeLargeInspectLog } from "../lib/testing/large-inspect-log";
import { storedEntries, zipArchive } from "../lib/testing/zip";

// Logs imported from the browser: an Inspect log and a zip of two more logs (one of them cut short)
// uploaded at once, the report with the file not imported; then the Inspect evaluation, where
// classifying its tools in the effect policy changes the audit. Then uploads past the 10 MB that
// Next's proxy used to cut bodies at: 200 MB through the API, 12 MB through the page, and past the cap.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

/** The large logs, generated at test time (never committed); made in the worker only, not when Playwright lists the tests. */
let largeDir: string;
test.beforeAll(() => {
  largeDir = mkdtempSync(path.join(tmpdir(), "bl-e2e-large-"));
});
test.afterAll(() => rmSync(largeDir, { recursive: true, force: true }));

interface Answer {
  status: number;
  body: unknown;
  /** Bytes the client had sent when the answer came. */
  sent: number;
}

/**
 * Streams `body` to POST /api/v1/imports as the editor, chunked unless `headers` declare a length,
 * on a connection of its own (one left inside an unsent body cannot serve another request), and
 * resolves with the answer as soon as it comes: the rest of the body is then not sent.
 */
function postImport(query: string, body: Readable, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const target = `${BASE_URL}/api/v1/imports?${query}`;
    const outgoing = httpRequest(
      target,
      {
        method: "POST",
        agent: false,
        headers: { ...bearer(accounts().users.editor.apiKey), "content-type": "application/octet-stream", ...headers },
      },
      (response) => {
        body.pause();
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          body.destroy();
          outgoing.destroy();
          resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")), sent });
        });
      },
    );
    outgoing.on("error", reject);
    body.on("data", (chunk: Buffer) => {
      sent += chunk.length;
      if (!outgoing.write(chunk)) body.pause();
    });
    outgoing.on("drain", () => body.resume());
    body.on("end", () => outgoing.end());
  });
}

/** `total` zero bytes, made as they are read. */
function zeros(total: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024);
  let left = total;
  return new Readable({
    read() {
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === 0 ? null : chunk.subarray(0, n));
    },
  });
}

test("an editor uploads logs, reads the report, and classifies an Inspect tool to see the audit change", async ({ page }) => {
  test.setTimeout(180_000);
  mkdirSync("test-results", { recursive: true });
  const zip = "test-results/imports-e2e-logs.zip";
  writeFileSync(
    zip,
    zipArchive([
      {
        name: "runs/gemini-2.0-flash-001/travel/user_task_0/none/none.json",
        data: readFileSync(`${AGENTDOJO_RUNS}runs__gemini-2.0-flash-001__travel__user_task_0__none__none.json`),
      },
      { name: "broken.json", data: '{"suite_name": "banking", "user_task_id": "user_task_0", "mess' },
    ]),
  );

  await page.goto("/evaluations/import");
  await page
    .getByTestId("import-files")
    .setInputFiles([`${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`, zip]);
  await page.getByTestId("import-submit").click();
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("3 file(s): 2 imported, 0 unchanged (already imported), 1 skipped, 0 failed; 2 run(s).");
  await expect(page.getByTestId("import-not-imported")).toContainText("imports-e2e-logs.zip/broken.json");
  await expect(page.getByTestId("import-not-imported")).toContainText("is the file truncated?");
  await expect(report.getByRole("link", { name: "AgentDojo gemini-2.0-flash-001" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  // The Inspect evaluation: its tools unclassified, so its one run is unresolved.
  await report.getByRole("link", { name: "Inspect browser · openai/gpt-4o-mini · XSogYfcZrx876NZYKz3Xf5" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("stat-unresolved")).toContainText("1/1 runs unresolved, of all scored runs");
  await expect(page.getByTestId("unresolved-by-tool")).toContainText("web_browser_go");
  await expect(page.getByTestId("tools-seen")).toContainText("web_browser_click");

  // Classify web_browser_go: the run's open effect is now web_browser_click's.
  await page.getByTestId("open-policy-form").click();
  await page.getByRole("button", { name: "Add a row for web_browser_go (seen in the runs, unclassified)" }).click();
  await page.getByLabel("Class, row 1").selectOption("sync_confirmed");
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByTestId("policy-saved")).toContainText("Saved as version 2");
  await expect(page.getByTestId("unresolved-by-tool")).toContainText("web_browser_click");
  await expect(page.getByTestId("unresolved-by-tool")).not.toContainText("web_browser_go");

  // Classify web_browser_click too: every effect completed before scoring, so the run is final.
  await page.getByRole("button", { name: "Add a row for web_browser_click (seen in the runs, unclassified)" }).click();
  await page.getByLabel("Class, row 2").selectOption("sync_confirmed");
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByTestId("policy-saved")).toContainText("Saved as version 3");
  await expect(page.getByTestId("stat-final")).toContainText("1/1 successes of final runs");
  await expect(page.getByTestId("stat-unresolved")).toContainText("0/1 runs unresolved, of all scored runs");
});

test("logs uploaded into an evaluation that exists keep the importer's tool classes, as a policy version the report names; saving it unchanged makes none", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const name = "existing evaluation for an upload (e2e)";
  const created = await fetch(`${BASE_URL}/api/v1/evaluations`, {
    method: "POST",
    headers: { ...bearer(accounts().users.editor.apiKey), "content-type": "application/json" },
    body: JSON.stringify({ name, effectPolicy: { tools: { my_own_tool: "read_only" } } }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles([
    // Not traces.spec's log: a trace is filed under the suite of the evaluation that made it first (docs/importers.md, The trace library).
    `${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json`,
    `${AGENTDOJO_RUNS}runs__gemini-2.0-flash-001__travel__user_task_0__none__none.json`,
  ]);
  await page.getByLabel("Evaluation (optional)").fill(name);
  await page.getByTestId("import-submit").click();
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("2 file(s): 2 imported");
  await expect(report).toContainText("1 effect-policy version(s) made with the importer's classes");
  const versions = page.getByTestId("import-policy-versions");
  await expect(versions).toContainText(name);
  await expect(versions).toContainText("send_money: sync_confirmed");
  await expect(versions).not.toContainText("my_own_tool");

  // The runs keep AgentDojo's classes: none is unresolved for want of one.
  await page.goto(`/evaluations/${id}`);
  await expect(page.getByTestId("policy-version")).toHaveText("effect policy version 2");
  await expect(page.getByTestId("stat-unresolved")).toContainText("0/2 runs unresolved, of all scored runs");

  // Saving the policy without an edit makes no version, and says so.
  await page.getByTestId("open-policy-form").click();
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByTestId("policy-saved")).toContainText("Nothing to save");
  await page.reload();
  await expect(page.getByTestId("policy-version")).toHaveText("effect policy version 2");
});

test("an imported run reads like Inspect View: its conversation with each tool call's effect beside it, from the page and the API", async ({
  page,
}) => {
  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles(`${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json`);
  await page.getByLabel("Evaluation (optional)").fill("transcripts (e2e)");
  await page.getByTestId("import-submit").click();
  // The evaluation the report lists (its warning links it too: this log went into other evaluations before).
  await page.getByTestId("import-evaluations").getByRole("link", { name: "transcripts (e2e)" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").at(-1)!;
  const externalId = "gpt-4o-2024-05-13/banking/user_task_0/none/none";

  await page.goto(`/evaluations/${id}/runs/${encodeURIComponent(externalId)}`);
  const transcript = page.getByTestId("transcript");
  await expect(transcript).toContainText("Messages 1–7 of 7");
  const messages = transcript.getByTestId("transcript-message");
  await expect(messages).toHaveCount(7);
  await expect(messages.nth(1)).toContainText("Can you please pay the bill 'bill-december-2023.txt' for me?");
  const transfer = messages.nth(4).getByTestId("transcript-tool-call");
  await expect(transfer).toContainText("calls send_money (call_PgtfPzMi2KhgDgBArTiljEkG)");
  await expect(transfer).toContainText('"recipient": "UK12345678901234567890"');
  await expect(transfer.getByTestId("transcript-call-audit")).toHaveText(
    "effect call-1: sync_confirmed, completed at scoring; its completed return at scoring",
  );
  await expect(messages.nth(5)).toContainText("answers call_PgtfPzMi2KhgDgBArTiljEkG");
  expect(await seriousViolations(page)).toEqual([]);

  const answer = await page.request.get(`/api/v1/evaluations/${id}/runs/${encodeURIComponent(externalId)}?messagesLimit=3`);
  expect(answer.status()).toBe(200);
  const body = (await answer.json()) as { externalId: string; messageCount: number; nextMessagesFrom: number; messages: unknown[] };
  expect(body).toMatchObject({ externalId, messageCount: 7, nextMessagesFrom: 3 });
  expect(body.messages[2]).toEqual({
    position: 2,
    role: "assistant",
    content: "",
    toolCalls: [{ id: "call_mjZKe8pTNZRkFdrKplc0ebOj", tool: "read_file", arguments: { file_path: "bill-december-2023.txt" } }],
  });
});

test("a 200 MB log streamed to the API, with no content-length, imports whole", async () => {
  test.setTimeout(300_000);
  const file = path.join(largeDir, "upload-200mb.json");
  await writeLargeInspectLog(file, "e2e-upload-200mb", 2_000);
  const size = statSync(file).size;
  expect(size).toBeGreaterThan(200 * 1000 * 1000);
  const started = performance.now();
  const answer = await postImport("file=upload-200mb.json", createReadStream(file, { highWaterMark: 1024 * 1024 }));
  console.log(
    `imports.spec: ${(size / 1e6).toFixed(0)} MB uploaded and imported in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.sent).toBe(size);
  expect(importReportSchema.parse(answer.body)).toMatchObject({
    files: 1,
    imported: 1,
    skipped: [],
    failed: [],
    runs: 2_000,
    evaluations: [{ name: "Inspect e2e-upload-200mb · ollama/llama3.1 · e2e-upload-200mb", runs: 2_000 }],
  });
});

test("current Inspect's Zstandard archive and an archive missing a sample, uploaded from the page: both imported, the second reported incomplete", async ({
  page,
}) => {
  const missing = path.join(largeDir, "missing-sample.eval");
  const streaming = await storedEntries(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`);
  writeFileSync(
    missing,
    zipArchive([...streaming].filter(([name]) => name !== "samples/2_epoch_2.json").map(([name, stored]) => ({ name, stored }))),
  );
  await page.goto("/evaluations/import");
  await page
    .getByTestId("import-files")
    .setInputFiles([`${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`, missing]);
  await page.getByTestId("import-submit").click();
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("0 skipped, 0 failed; 4 run(s). 1 imported incomplete.", { timeout: 30_000 });
  await expect(report).toContainText("Inspect task · mockllm/test · NHBw2w5NYTbuW8GyUMzpqx: 1 run(s)");
  const incomplete = page.getByTestId("import-incomplete");
  await expect(incomplete.getByRole("row", { name: /missing-sample\.eval/ })).toContainText("incomplete: 3/4");
  await expect(incomplete.getByRole("row", { name: /missing-sample\.eval/ })).toContainText("2 epoch 2");
  // The log's own figures (Inspect's accuracy over its scores) beside the thresholded success rates, saying which is which.
  await report.getByRole("link", { name: /WckPjG7ovQZLAiZF2fZpog/ }).click();
  const figures = page.getByTestId("harness-metrics");
  await expect(figures.getByRole("row", { name: /accuracy/ })).toContainText("0.75");
  await expect(figures.getByRole("row", { name: /stderr/ })).toContainText("0.25");
  await expect(page.getByTestId("harness-metrics-note")).toContainText("The success rates above are another figure");
});

test("a 12 MB log uploaded from the import page imports whole", async ({ page }) => {
  test.setTimeout(120_000);
  const file = path.join(largeDir, "page-12mb.json");
  await writeLargeInspectLog(file, "e2e-page-12mb", 120);
  expect(statSync(file).size).toBeGreaterThan(12 * 1000 * 1000);
  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles(file);
  await page.getByTestId("import-submit").click();
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("1 file(s): 1 imported, 0 unchanged (already imported), 0 skipped, 0 failed; 120 run(s).", {
    timeout: 60_000,
  });
  await expect(report.getByRole("link", { name: "Inspect e2e-page-12mb · ollama/llama3.1 · e2e-page-12mb" })).toBeVisible();
  await expect(report).toContainText("Inspect e2e-page-12mb · ollama/llama3.1 · e2e-page-12mb: 120 run(s)");
});

test("an upload past the 1 GB cap gets a JSON 413 naming the cap, while it is still being sent", async () => {
  test.setTimeout(180_000);
  const refusal = { error: { code: "body_too_large", message: `a log can be at most ${MAX_UPLOAD_BYTES} bytes` } };
  // A declared length past the cap: refused before the body is read.
  const declared = await postImport("file=declared.json", zeros(64 * 1024), { "content-length": String(MAX_UPLOAD_BYTES + 1) });
  expect(declared).toMatchObject({ status: 413, body: refusal });
  // Chunked, so only the count can tell: refused as it passes the cap, the rest never sent.
  const total = MAX_UPLOAD_BYTES + 256 * 1024 * 1024;
  const started = performance.now();
  const streamed = await postImport("file=endless.json", zeros(total));
  console.log(
    `imports.spec: refused after ${(streamed.sent / 1024 ** 2).toFixed(0)} MiB sent, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  expect(streamed).toMatchObject({ status: 413, body: refusal });
  expect(streamed.sent).toBeGreaterThan(MAX_UPLOAD_BYTES);
  expect(streamed.sent).toBeLessThan(total);
});

test("a log imported into a second evaluation is reported as held by the first too, with links to both", async ({ page }) => {
  const log = `${AGENTDOJO_RUNS}runs__meta-llama_Llama-3.3-70B-Instruct__slack__user_task_0__important_instructions__injection_task_1.json`;
  const upload = async (evaluation: string) => {
    await page.goto("/evaluations/import");
    await page.getByTestId("import-files").setInputFiles(log);
    await page.getByLabel("Evaluation (optional)").fill(evaluation);
    await page.getByTestId("import-submit").click();
    await expect(page.getByTestId("import-report")).toContainText("1 file(s): 1 imported");
  };
  await upload("held first (e2e)");
  // Other specs import the same real log into evaluations of their own: only this test's second evaluation is checked.
  await expect(page.getByTestId("import-elsewhere").filter({ hasText: "held second (e2e)" })).toHaveCount(0);
  await upload("held second (e2e)");
  const elsewhere = page.getByTestId("import-elsewhere");
  await expect(elsewhere).toContainText("Some of these runs are in another evaluation too");
  await expect(elsewhere).toContainText("1 run(s) stored in held second (e2e) are also in held first (e2e), with the same content");
  expect(await seriousViolations(page)).toEqual([]);
  await elsewhere.getByRole("link", { name: "held first (e2e)" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("held first (e2e)");
});

test("logs dropped on the upload zone are listed with their sizes, removable, and imported", async ({ page }) => {
  const names = [
    "runs__claude-3-7-sonnet-20250219__workspace__user_task_7__important_instructions__injection_task_1.json",
    "runs__gpt-4o-2024-05-13__banking__user_task_13__important_instructions__injection_task_7.json",
  ];
  await page.goto("/evaluations/import");
  // A drop as the browser delivers it: a DataTransfer holding the files.
  const drop = await page.evaluateHandle(
    (files) => {
      const transfer = new DataTransfer();
      for (const f of files) transfer.items.add(new File([f.text], f.name, { type: "application/json" }));
      return transfer;
    },
    names.map((name) => ({ name, text: readFileSync(`${AGENTDOJO_RUNS}${name}`, "utf8") })),
  );
  const zone = page.getByTestId("import-dropzone");
  await expect(zone).toContainText("Drop log files here, or click to choose");
  await zone.dispatchEvent("dragover", { dataTransfer: drop });
  await expect(zone).toHaveAttribute("data-over", "true");
  await zone.dispatchEvent("drop", { dataTransfer: drop });
  const chosen = page.getByTestId("import-chosen");
  await expect(chosen.getByRole("listitem")).toHaveCount(2);
  await expect(chosen).toContainText(new RegExp(`${names[0]} \\(\\d+\\.\\d KB\\)`));
  // The same files dropped again are not listed twice; one is removed before sending.
  await zone.dispatchEvent("drop", { dataTransfer: drop });
  await expect(chosen.getByRole("listitem")).toHaveCount(2);
  await page.getByRole("button", { name: `Remove ${names[1]}` }).click();
  await expect(chosen.getByRole("listitem")).toHaveCount(1);
  await page.getByLabel("Evaluation (optional)").fill("dropped logs (e2e)");
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("import-report")).toContainText("1 file(s): 1 imported");
  await expect(page.getByTestId("import-chosen")).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
});
