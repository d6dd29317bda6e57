import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { AGENTDOJO_RUNS, INSPECT_LOGS } from "../lib/testing/importer-fixtures";
import { zipArchive } from "../lib/testing/zip";

// Logs imported from the browser: an Inspect log and a zip of two more logs (one of them cut short)
// uploaded at once, the report with the file not imported; then the Inspect evaluation, where
// classifying its tools in the effect policy changes the audit.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

test("an editor uploads logs, reads the report, and classifies an Inspect tool to see the audit change", async ({ page }) => {
  test.setTimeout(180_000);
  mkdirSync("test-results", { recursive: true });
  const zip = "test-results/imports-e2e-logs.zip";
  writeFileSync(
    zip,
    zipArchive([
      { name: "runs/gemini-2.0-flash-001/travel/user_task_0/none/none.json", data: readFileSync(`${AGENTDOJO_RUNS}runs__gemini-2.0-flash-001__travel__user_task_0__none__none.json`) },
      { name: "broken.json", data: '{"suite_name": "banking", "user_task_id": "user_task_0", "mess' },
    ]),
  );

  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles([`${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`, zip]);
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
