import type { Page } from "@playwright/test";
import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { RUNS_LIST_POLICY, runsListDuration, runsListExample } from "../lib/testing/runs-list-example";

// An evaluation's runs list and run page in Chromium: runs in the order they were sent, units labelled within the evaluation,
// the search box, a sort and filters applied through the form, keyset pages; on a run page, the searched text marked and
// stepped through.
test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("viewer")) });

let id: string;
test.beforeAll(async () => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  ({ id } = await client.createEvaluation({ name: `runs list ${Date.now()}`, effectPolicy: RUNS_LIST_POLICY }));
  const { results } = await client.ingestRuns(id, runsListExample());
  expect(results.map((r) => r.status)).toEqual(Array(12).fill("created"));
});

const links = (page: Page) => page.getByTestId("evaluation-run-link");
/** The list shows exactly these runs in this order (waiting for the page a form or link opened). */
const expectListed = (page: Page, externalIds: string[]) => expect(links(page)).toHaveText(externalIds.map((x) => new RegExp(`^${x}$`)));
const rowOf = (page: Page, externalId: string) =>
  page.getByRole("row").filter({ has: page.getByTestId("evaluation-run-link").getByText(externalId, { exact: true }) });

test("the runs list shows runs in stored order with local unit labels; the search box, a sort, filters and pages work", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto(`/evaluations/${id}/runs`);
  await expect(page.getByTestId("evaluation-runs-count")).toContainText("12 runs on this page");
  await expectListed(
    page,
    Array.from({ length: 12 }, (_, k) => `r${k + 1}`),
  );
  // r6 wrote what r2 read: both in the evaluation's second unit; r7 is the sixth unit, not a global id.
  await expect(rowOf(page, "r2").getByRole("link", { name: "U2", exact: true })).toBeVisible();
  await expect(rowOf(page, "r6").getByRole("link", { name: "U2", exact: true })).toBeVisible();
  await expect(rowOf(page, "r7").getByRole("link", { name: "U6", exact: true })).toBeVisible();
  await expect(rowOf(page, "r2")).toContainText(`${runsListDuration(2).toFixed(2)} s`);
  expect(await seriousViolations(page)).toEqual([]);
  // A unit's link lists its runs.
  await rowOf(page, "r6").getByRole("link", { name: "U2", exact: true }).click();
  await expect(page.getByTestId("evaluation-runs-count")).toContainText("2 runs on this page, unit U2");
  await expectListed(page, ["r2", "r6"]);

  // The search box: text in transcripts (any case), then the run's own page marks it.
  await page.goto(`/evaluations/${id}/runs`);
  await page.getByLabel("Search transcripts, tool calls, tasks and run ids").fill("marguerite");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/q=marguerite/);
  await expect(page.getByTestId("evaluation-runs-count")).toContainText("2 runs on this page matching “marguerite”");
  await expectListed(page, ["r4", "r8"]);
  await page.getByLabel("Search transcripts, tool calls, tasks and run ids").fill("zeppelin");
  await page.getByRole("button", { name: "Search" }).click();
  await expectListed(page, ["r10"]);

  // Sorted by duration through the form: the shortest first, the unscored run (no duration) last; then descending.
  await page.goto(`/evaluations/${id}/runs`);
  await page.getByLabel("Sort by").selectOption("duration");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/sort=duration/);
  const byDuration = Array.from({ length: 11 }, (_, k) => k + 1)
    .sort((a, b) => runsListDuration(a) - runsListDuration(b))
    .map((i) => `r${i}`);
  await expectListed(page, [...byDuration, "r12"]);
  await page.getByLabel("Order").selectOption("desc");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expectListed(page, ["r12", ...[...byDuration].reverse()]);

  // Filters: unresolved runs with at least two open effects; failures scoring at least 0.5.
  await page.goto(`/evaluations/${id}/runs`);
  await page.getByLabel("Finality").selectOption("unresolved");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expectListed(page, ["r3", "r7", "r9"]);
  await page.getByLabel("Open effects at least").fill("2");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expectListed(page, ["r9"]);
  await page.goto(`/evaluations/${id}/runs?label=failure&scoreMin=0.5`);
  await expectListed(page, ["r7", "r9", "r11"]);
  // A bad value is refused in the API's words, naming the field.
  await page.goto(`/evaluations/${id}/runs?durationMin=soon`);
  await expect(page.getByRole("alert").filter({ hasText: "These filters cannot be applied" })).toContainText(
    "durationMin must be a whole number",
  );

  // Keyset pages of a sort: five at a time by score, the runs without a score last.
  await page.goto(`/evaluations/${id}/runs?sort=score&limit=5`);
  for (const [k, expected] of [
    ["r1", "r2", "r3", "r4", "r6"],
    ["r7", "r8", "r9", "r10", "r11"],
    ["r5", "r12"],
  ].entries()) {
    if (k > 0) await page.getByRole("link", { name: "Next page" }).click();
    await expectListed(page, expected);
  }
  await expect(page.getByRole("link", { name: "Next page" })).toHaveCount(0);
});

test("a run found by a search marks every match in its transcript and steps through them; its unit has the local label", async ({
  page,
}) => {
  await page.goto(`/evaluations/${id}/runs?q=marguerite`);
  await rowOf(page, "r8").getByTestId("evaluation-run-link").click();
  await expect(page).toHaveURL(new RegExp(`/evaluations/${id}/runs/r8\\?q=marguerite$`));
  const status = page.getByTestId("transcript-search-status");
  const current = page.locator("[data-search-current]");
  await expect(status).toHaveText("1 of 2");
  await expect(page.getByLabel("Find in this transcript")).toHaveValue("marguerite");
  await expect(current).toHaveText("Ticket closed by MARGUERITE, refund sent.");
  await expect(current).toBeInViewport();
  await page.getByRole("button", { name: "Next match" }).click();
  await expect(status).toHaveText("2 of 2");
  await expect(current).toHaveText("Marguerite confirmed the refund.");
  await page.getByRole("button", { name: "Next match" }).click();
  await expect(status).toHaveText("1 of 2");
  await page.getByRole("button", { name: "Previous match" }).click();
  await expect(status).toHaveText("2 of 2");
  // Typing another text searches again; Enter steps on.
  await page.getByLabel("Find in this transcript").fill("refund");
  await expect(status).toHaveText("1 of 2");
  await page.getByLabel("Find in this transcript").press("Enter");
  await expect(status).toHaveText("2 of 2");
  await page.getByLabel("Find in this transcript").fill("no such words");
  await expect(status).toHaveText("no match");
  expect(await seriousViolations(page)).toEqual([]);

  await page.goto(`/evaluations/${id}/runs/r6`);
  await expect(page.getByTestId("run-unit")).toHaveText("U2");
});
