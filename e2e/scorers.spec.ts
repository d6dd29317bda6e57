import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { scoreAsNumber } from "../lib/importers/inspect-scores";
import { RUBRIC, twoScorerLedgerLog } from "../lib/testing/two-scorer-inspect-log";

// A task scored by two scorers, the first dict-valued, uploaded from the import page: a scorer the log
// lacks refuses it; by default the report says the first scorer labels nothing and names the readable
// one; the evaluation page shows every scorer's rate with Inspect's metrics; uploaded again with the
// labelling scorer set to match, match labels the runs.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

let dir: string;
let file: string;
/** match's successes and readable values, read from the samples here. */
let match: { successes: number; n: number };
test.beforeAll(async () => {
  const log = await twoScorerLedgerLog();
  dir = mkdtempSync(path.join(tmpdir(), "bl-e2e-scorers-"));
  file = path.join(dir, "ledger-two-scorers.eval");
  writeFileSync(file, log.eval);
  const values = (log.json.samples as { scores?: Record<string, { value: unknown }> }[]).flatMap((s) =>
    s.scores?.match ? [scoreAsNumber(s.scores.match.value)] : [],
  );
  match = { successes: values.filter((v) => v === 1).length, n: values.length };
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function upload(page: import("@playwright/test").Page, scorer: string) {
  await page.goto("/evaluations/import");
  await page.getByTestId("import-files").setInputFiles(file);
  await page.getByLabel("Evaluation (optional)").fill("ledger, two scorers");
  await page.getByLabel("Labelling scorer (optional)").fill(scorer);
  await page.getByTestId("import-submit").click();
  return page.getByTestId("import-report");
}

test("the labelling scorer chosen on the import form, and every scorer's rate on the evaluation page", async ({ page }) => {
  test.setTimeout(120_000);
  const refused = await upload(page, "includes");
  await expect(refused).toContainText("1 file(s): 0 imported, 0 unchanged (already imported), 1 skipped, 0 failed; 0 run(s).");
  const row = page.getByTestId("import-not-imported").getByRole("row", { name: /ledger-two-scorers\.eval/ });
  await expect(row).toContainText("refused (scorer)");
  await expect(row).toContainText(`this log has no scorer named includes (its scorers: ${RUBRIC}, match)`);

  // By default the first scorer labels: its values are dicts, and the report says which scorer to choose.
  const report = await upload(page, "");
  await expect(report).toContainText("1 imported");
  await expect(page.getByTestId("import-unlabelled")).toContainText(
    `ledger-two-scorers.eval: ${match.n} run(s) unscored, scorer ${RUBRIC} recorded values that are no label (a dict or a list). Readable instead: match`,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await report.getByRole("link", { name: "ledger, two scorers" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  const scorers = page.getByTestId("scorer-rates");
  const rubricRow = scorers.locator(`tr[data-scorer="${RUBRIC}"]`);
  const matchRow = scorers.locator('tr[data-scorer="match"]');
  await expect(rubricRow).toContainText("yes");
  await expect(rubricRow).toContainText("0/0");
  await expect(rubricRow).toContainText("balance/mean");
  await expect(rubricRow.getByRole("cell").nth(4)).toHaveText(String(match.n)); // every rubric value unreadable
  await expect(matchRow.getByRole("cell").nth(1)).toHaveText("no");
  await expect(matchRow.getByRole("cell").nth(2)).toHaveText(`${match.successes}/${match.n}`);
  await expect(matchRow).toContainText("accuracy 0.6, stderr 0.2449");
  await page.getByTestId("scorer-rates").screenshot({ path: "test-results/scorer-rates.png" });
  expect(await seriousViolations(page)).toEqual([]);

  // Uploaded again with match as the labelling scorer: match labels the runs, the reported rate is its rate.
  const relabelled = await upload(page, "match");
  await expect(relabelled).toContainText("1 imported");
  await expect(page.getByTestId("import-unlabelled")).toHaveCount(0);
  await relabelled.getByRole("link", { name: "ledger, two scorers" }).click();
  await expect(page.locator('[data-testid="scorer-rates"] tr[data-scorer="match"]').getByRole("cell").nth(1)).toHaveText("yes");
  await expect(page.locator('[data-testid="scorer-rates"] tbody tr').first()).toHaveAttribute("data-scorer", "match");
  await expect(page.getByTestId("stat-reported")).toContainText(`${match.successes}/${match.n}`);
});
