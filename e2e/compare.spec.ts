import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client";
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
  const pair = (x: string, y: string) => pairs.filter({ has: page.getByRole("rowheader", { name: `${tag} ${x} vs ${tag} ${y}`, exact: true }) });
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
  expect(await seriousViolations(page)).toEqual([]);

  // The same page from the API's form of the query; too few ids are refused in words.
  await page.goto(`/evaluations/compare?ids=${ids.A},${ids.C}`);
  await expect(page.getByTestId("pair-verdict")).toContainText("holds across the justified range");
  await page.goto(`/evaluations/compare?ids=${ids.A}`);
  await expect(page.getByRole("alert").filter({ hasText: "cannot be applied" })).toContainText("ids must name at least two evaluations");
});
