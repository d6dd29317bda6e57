import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { COMPARISON_POLICY, comparisonExample } from "../lib/testing/comparison-example";

// The comparison end to end: three evaluations ingested through the typed client, chosen from the
// list's checkboxes, compared on the page. A 8/10; B reported 17/20 but 9 unresolved (range 8/20 to
// 17/20), final-only 8/11; C 8/40. A and B flip within B's range; A over C holds (Wilson(8,10)
// lower 0.490 > Wilson(8,40) upper 0.348); B over C is not separable (Wilson(8,20) lower 0.219 < 0.348).
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

test("three ingested evaluations compared from the list: one pair flips within its justified range", async ({ page }) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const tag = `compare-${Date.now()}`;
  const runs = comparisonExample();
  const ids: Record<"A" | "B" | "C", string> = { A: "", B: "", C: "" };
  for (const key of ["A", "B", "C"] as const) {
    ids[key] = (await client.createEvaluation({ name: `${tag} ${key}`, benchmark: "compare-bench", effectPolicy: COMPARISON_POLICY })).id;
    expect((await client.ingestRuns(ids[key], runs[key])).results.every((r) => r.status === "created")).toBe(true);
  }

  // The API's answer.
  const answer = await client.compare([ids.A, ids.B, ids.C]);
  expect(answer.pairs.map((p) => [p.a, p.b, p.verdict, p.leader])).toEqual([
    [ids.A, ids.B, "flips within it", null],
    [ids.A, ids.C, "holds across the justified range", ids.A],
    [ids.B, ids.C, "not separable at this sample size", ids.B],
  ]);
  expect(answer.ranking).toEqual({ endpoint: [ids.B, ids.A, ids.C], finalOnly: [ids.A, ids.B, ids.C], changed: true });

  // The page, reached from the list's checkboxes.
  await page.goto(`/evaluations?name=${tag}`);
  for (const key of ["A", "B", "C"] as const) await page.getByLabel(`Compare ${tag} ${key}`).check();
  await page.getByTestId("compare-submit").click();
  await expect(page).toHaveURL(/\/evaluations\/compare\?ids=/);
  // The list is newest first, so the checkboxes send C, B, A: the pairs follow that order.
  const pairs = page.getByTestId("pair-verdict");
  await expect(pairs).toHaveCount(3);
  const pair = (x: string, y: string) =>
    pairs.filter({ has: page.getByRole("rowheader", { name: `${tag} ${x} vs ${tag} ${y}`, exact: true }) });
  await expect(pair("B", "A")).toContainText("flips within it");
  await expect(pair("C", "A")).toContainText("holds across the justified range");
  await expect(pair("C", "B")).toContainText("not separable at this sample size");
  const table = page.getByTestId("comparison-evaluations");
  await expect(table.getByRole("row", { name: new RegExp(`${tag} B`) })).toContainText("17/20 (85.0%)");
  await expect(table.getByRole("row", { name: new RegExp(`${tag} B`) })).toContainText("8/11 (72.7%)");
  await expect(table.getByRole("row", { name: new RegExp(`${tag} B`) })).toContainText("8/20 to 17/20");
  await expect(page.getByTestId("ranking-endpoint")).toHaveText(`${tag} B${tag} A${tag} C`);
  await expect(page.getByTestId("ranking-finalOnly")).toHaveText(`${tag} A${tag} B${tag} C`);
  await expect(page.getByTestId("comparison-rule")).toContainText("Every evaluation declared rule version 1");
  // The interval plot: per evaluation a reported and a final-only dot with Wilson whiskers, over the justified range.
  const plot = page.getByTestId("comparison-interval-plot");
  await expect(plot.getByRole("img", { name: /^Each evaluation's rates/ })).toHaveAttribute(
    "aria-label",
    new RegExp(
      `${tag} B: reported 17/20 \\(95% Wilson 64\\.0%–94\\.8%\\), final-only 8/11 \\(95% Wilson 43\\.4%–90\\.3%\\), justified range 8/20 to 17/20`,
    ),
  );
  await plot.scrollIntoViewIfNeeded();
  await expect(plot.locator(".recharts-wrapper > svg.recharts-surface")).toBeVisible({ timeout: 20_000 });
  await expect(plot.locator(".recharts-errorBar")).toHaveCount(6);
  // Two bands per evaluation: the justified range and its interval.
  await expect(plot.locator(".recharts-reference-area")).toHaveCount(6);
  // One row per evaluation in the table's order (the checkboxes sent C, B, A), each named on the axis.
  await expect(plot.locator(".recharts-yAxis-tick-labels text")).toHaveText([`${tag}C`, `${tag}B`, `${tag}A`]);
  await expect(plot.locator(".recharts-legend-item-text")).toHaveText(["Reported (endpoint)", "Final-only"]);
  await plot.screenshot({ path: "test-results/comparison-interval-plot.png" });
  expect(await seriousViolations(page)).toEqual([]);

  // The same page from the API's form of the query; too few ids are refused in words.
  await page.goto(`/evaluations/compare?ids=${ids.A},${ids.C}`);
  await expect(page.getByTestId("pair-verdict")).toContainText("holds across the justified range");
  await page.goto(`/evaluations/compare?ids=${ids.A}`);
  await expect(page.getByRole("alert").filter({ hasText: "cannot be applied" })).toContainText("ids must name at least two evaluations");
  // Below the refusal, a picker with the one named already ticked.
  const picker = page.getByTestId("compare-picker");
  await expect(picker.getByLabel(`${tag} A`)).toBeChecked();

  // Without ids: no error, a picker of the newest evaluations; ticking two compares them.
  await page.goto("/evaluations/compare");
  await expect(page.getByRole("alert").filter({ hasText: "cannot be applied" })).toHaveCount(0);
  await expect(picker).toContainText("Choose two or more evaluations to compare");
  await picker.getByLabel(`${tag} A`).check();
  await picker.getByLabel(`${tag} C`).check();
  expect(await seriousViolations(page)).toEqual([]);
  await picker.getByRole("button", { name: "Compare" }).click();
  await expect(page.getByTestId("pair-verdict")).toContainText("holds across the justified range");
});

// A rule declared in the new-evaluation form (unresolved as success, a 60 % target) on B's runs:
// 17/20 under it, 8/20 with unresolved as failure, so the target flips between rules. Compared
// with A (the default rule), the comparison applies B's rule and says the rules differ; its share
// link opens in a fresh browser context with the same verdicts and the snapshot's hash.
test("a declared rule from the form, a comparison under one rule, shared and opened without an account", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const tag = `declared-${Date.now()}`;
  const runs = comparisonExample();

  await page.goto("/evaluations/new");
  await page.getByLabel("Name", { exact: true }).fill(`${tag} B`);
  await page.getByRole("button", { name: "Add a tool" }).click();
  await page.getByLabel("Tool name or pattern, row 1").fill("deploy");
  await page.getByLabel("Class, row 1").selectOption(COMPARISON_POLICY.tools.deploy);
  await page.getByLabel("Unresolved runs").selectOption("count_as_success");
  await page.getByLabel("Target for the headline rate (optional)").fill("2");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.getByTestId("exclusion-rule-fields").getByTestId("field-error")).toContainText("Exclusion rule must be at most 1");
  await page.getByLabel("Target for the headline rate (optional)").fill("0.6");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  const declared = page.url().split("/").at(-1)!;
  expect((await client.ingestRuns(declared, runs.B)).results.every((r) => r.status === "created")).toBe(true);
  const other = (await client.createEvaluation({ name: `${tag} A`, effectPolicy: COMPARISON_POLICY })).id;
  expect((await client.ingestRuns(other, runs.A)).results.every((r) => r.status === "created")).toBe(true);

  await page.reload();
  await expect(page.getByTestId("statistics-rates")).toContainText("17/20");
  await expect(page.getByTestId("statistics-threshold-warnings")).toContainText("the conclusion depends on the exclusion rule");
  await expect(page.getByTestId("exclusion-rule-history")).toContainText("declared at creation");
  await expect(page.getByTestId("exclusion-rule-history")).toContainText("unresolved: count as success");

  await page.goto(`/evaluations/compare?ids=${declared},${other}`);
  await expect(page.getByTestId("comparison-rule")).toContainText(`Their declared rules differ`);
  await expect(page.getByTestId("comparison-rule")).toContainText(`this comparison applies ${tag} B's rule version 1`);
  await expect(page.getByTestId("pair-verdict")).toContainText("flips within it");
  await expect(page.getByTestId("comparison-rule-warnings")).toContainText("the order depends on the exclusion rule");
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByRole("button", { name: "Share read-only link…" }).click();
  await page.getByRole("button", { name: "Create link" }).click();
  const url = await page.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${BASE_URL}/s/[A-Za-z0-9_-]{43}$`));
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("resource-share-links").getByTestId("share-link-row")).toHaveCount(1);

  const fresh = await browser.newContext();
  const reviewer = await fresh.newPage();
  expect((await reviewer.goto(url))?.status()).toBe(200);
  await expect(reviewer.getByTestId("share-banner")).toContainText("Read-only shared comparison of 2 evaluations");
  await expect(reviewer.getByTestId("share-hash")).toHaveText(/^[0-9a-f]{64}$/);
  await expect(reviewer.getByTestId("pair-verdict")).toContainText("flips within it");
  await expect(reviewer.getByTestId("comparison-rule")).toContainText("Their declared rules differ");
  await expect(reviewer.getByTestId("comparison-evaluations").getByRole("link")).toHaveCount(0);
  await fresh.close();

  // The editor declares B's rule's next version on its page: a reason is required; then unresolved
  // runs count as failures, and the headline names version 2 (8/20), with version 1 kept below.
  await page.goto(`/evaluations/${declared}`);
  await page.getByTestId("open-rule-change").click();
  const change = page.getByTestId("exclusion-rule-change");
  await change.getByLabel("Unresolved runs").selectOption("count_as_failure");
  await change.getByRole("button", { name: "Save as a new rule version" }).click();
  await expect(change.getByTestId("field-error")).toContainText("Reason");
  await change.getByLabel("Reason").fill("Unresolved runs carry no evidence of success");
  await change.getByRole("button", { name: "Save as a new rule version" }).click();
  await expect(change.getByTestId("rule-saved")).toContainText("Saved as version 2");
  await expect(page.getByTestId("statistics-rates").getByRole("row", { name: /success rate \(rule version 2\)/ })).toContainText("8/20");
  await expect(page.getByTestId("exclusion-rule-history")).toContainText("Unresolved runs carry no evidence of success");
  await expect(page.getByTestId("exclusion-rule-history")).toContainText("declared at creation");
});
