import { readFileSync } from "node:fs";
import { expect, storageStateFor, test } from "./fixtures";
import { wilsonInterval } from "../lib/statistics/wilson";

// The dashboard in Chromium: an editor starts the paper's grid from the form, watches the progress
// bar reach done, and finds the paper's Table 2 on the page, in the charts' text and in the CSV.
test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

test("the form refuses a bad field inline and writes nothing; the paper grid then runs to exactly Table 2", async ({ page }) => {
  test.setTimeout(150_000);
  const countExperiments = async () =>
    ((await (await page.request.get("/api/v1/experiments?limit=500")).json()) as { experiments: unknown[] }).experiments.length;
  const before = await countExperiments();

  await page.goto("/experiments/new");
  await page.getByLabel("Delays (ms, comma-separated)").fill("0, 25, soon");
  await page.getByLabel("Repetitions").fill("0");
  // An emptied number field is an error, never the default silently (the full 3,600-run grid).
  await page.getByLabel("Schedules").fill("");
  await page.getByRole("button", { name: "Start experiment" }).click();
  // Each error names the field as the form labels it and says what is allowed; no internal name.
  await expect(page.locator("#delaysMs-error")).toHaveText(
    "Delays (ms): the third value (“soon”) is not a number; enter whole numbers from 0 to 10000, comma-separated (at most 16)",
  );
  await expect(page.locator("#repetitions-error")).toHaveText("Repetitions must be at least 1; enter a whole number from 1 to 1000");
  await expect(page.locator("#schedules-error")).toHaveText("Schedules is required; enter a whole number from 1 to 100");
  // The hint and the error are separate lines, each its own element.
  await expect(page.locator("#schedules-hint")).toHaveText(/^Fixed schedules of the trace\./);
  await expect(page.getByLabel("Delays (ms, comma-separated)")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Delays (ms, comma-separated)")).toBeFocused();
  await page.screenshot({ path: "test-results/new-experiment-errors.png", fullPage: true });
  expect(await countExperiments()).toBe(before);

  // The paper's grid: every field back at its default.
  await page.getByLabel("Delays (ms, comma-separated)").fill("0, 25, 100, 250");
  await page.getByLabel("Repetitions").fill("10");
  await page.getByLabel("Schedules").fill("5");
  await page.getByRole("button", { name: "Start experiment" }).click();
  await expect(page).toHaveURL(/\/experiments\/[0-9a-f-]{36}$/);
  const progress = page.getByTestId("experiment-progress");
  await expect(progress).toBeVisible();
  // While it runs, the headline follows the runs stored (the page refreshes its results), and the
  // shared-state card never says the grid lacks what it holds.
  await expect
    .poll(
      async () => {
        const state = await page.getByTestId("progress-state").textContent();
        const runs = (await page.getByTestId("stat-runs").textContent()) ?? "";
        return state === "running" && !/\b0\/3600/.test(runs) ? "refreshed while running" : `${state}: ${runs}`;
      },
      { timeout: 60_000 },
    )
    .toBe("refreshed while running");
  await expect(page.getByTestId("stat-exposure")).not.toContainText("not in this grid");
  await expect(page.getByTestId("progress-state")).toHaveText("completed", { timeout: 120_000 });
  await expect(progress).toHaveAttribute("value", "3600");
  await expect(page.getByText("3600/3600 runs stored (100%)")).toBeVisible();

  // The page refreshed itself with the final results: the paper's Table 2, row for row.
  const table2 = page.getByRole("table", { name: "Table 2: predicted against reproduced" });
  // On the paper's grid the prediction column is the paper's published figure.
  await expect(table2.getByRole("columnheader", { name: "Published (the paper)" })).toBeVisible();
  await expect(table2.getByRole("row")).toHaveCount(10);
  for (const [condition, figure] of [
    ["Snapshot", "0/150 successes at nonzero delays"],
    ["Reconciliation", "150/150 successes at nonzero delays"],
    ["Verified cancellation", "0/150 successes at nonzero delays"],
    ["Synchronous control", "0/600 disagreements"],
    ["Shared state", "150/200 exposures"],
    ["Shared state: B's mean score against namespacing", "0.75 lower"],
    ["Namespacing", "0/200 exposures"],
    ["Verified reset", "0/200 exposures"],
    ["No-write control", "0/200 exposures"],
  ]) {
    const row = table2.getByRole("row").filter({ has: page.getByRole("rowheader", { name: condition, exact: true }) });
    await expect(row.getByRole("cell")).toHaveText([/^(Finality|Separation)$/, figure!, figure!, "yes"]);
  }
  await expect(page.getByTestId("experiment-state")).toHaveText("completed");

  // Five charts, each drawn and each with its n/N figures in words.
  const charts = page.locator("figure.chart");
  await expect(charts).toHaveCount(5);
  // Charts load as they come into view (their module is not part of the page's first load).
  for (const chart of await charts.all()) {
    await chart.scrollIntoViewIfNeeded();
    await expect(chart.locator(".recharts-wrapper > svg.recharts-surface")).toBeVisible({ timeout: 20_000 });
  }
  await expect(page.getByRole("img", { name: /Endpoint-versus-terminal disagreement/ })).toHaveAttribute(
    "aria-label",
    /snapshot at 25 ms: 50\/50/,
  );
  // Identical series share one line whose legend names each; long x-axis labels wrap instead of running together.
  await expect(
    page.locator("figure.chart").first().locator(".recharts-legend-item-text").filter({ hasText: "identical" }).first(),
  ).toBeVisible();
  await expect(
    page
      .locator("figure.chart")
      .nth(1)
      .locator("svg tspan")
      .filter({ hasText: /^cancellation$/ })
      .first(),
  ).toBeVisible();
  await expect(page.getByRole("img", { name: /Cross-run exposure/ })).toHaveAttribute(
    "aria-label",
    /shared state: 150\/200 \(95% Wilson 68\.6%–80\.5%\)/,
  );
  // Every drawn rate carries its Wilson whisker: one per separation condition on the exposure chart, 0/200 included.
  await expect(
    page
      .locator("figure.chart")
      .filter({ has: page.getByRole("img", { name: /Cross-run exposure/ }) })
      .locator(".recharts-errorBar"),
  ).toHaveCount(6);
  await page.screenshot({ path: "test-results/experiment-dashboard.png", fullPage: true });

  // The Table 2 CSV opens as a spreadsheet would read it: a header and one figure per row.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "CSV" }).first().click()]);
  expect(download.suggestedFilename()).toMatch(/^boundary-lab-table2-[0-9a-f-]{36}\.csv$/);
  // UTF-8 BOM and CRLF, as the runs and effects exports (so that spreadsheets read it as UTF-8).
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv.startsWith("\uFEFF")).toBe(true);
  const lines = csv.slice(1).trimEnd().split("\r\n");
  // The Wilson interval of each rate in two added columns (a count ratio has none).
  const wilson = (n: number, of: number) => wilsonInterval(n, of)!.join(",");
  expect(lines[0]).toBe("test,condition,measure,numerator,denominator,value,wilson95_lower,wilson95_upper");
  expect(lines).toContain(`finality,snapshot,recorded_successes_nonzero_delay,0,150,0,${wilson(0, 150)}`);
  expect(lines).toContain(`finality,reconciliation,recorded_successes_nonzero_delay,150,150,1,${wilson(150, 150)}`);
  expect(lines).toContain(`separation,shared,exposures_per_pair,150,200,0.75,${wilson(150, 200)}`);
  expect(lines).toContain("separation,grouped,analysis_units_per_run_row,200,400,0.5,,");

  // The list names the headline's figure over the headline's population: one denominator for one figure.
  const headline = /(\d+)\/(\d+)/.exec((await page.getByTestId("stat-disagreement").textContent()) ?? "")!;
  const id = page.url().split("/").at(-1)!;
  await page.goto("/");
  const row = page
    .getByTestId("experiments")
    .getByRole("row")
    .filter({ has: page.locator(`a[href="/experiments/${id}"]`) });
  await expect(row).toContainText(`${headline[1]}/${headline[2]}`);
  await expect(
    page.getByTestId("experiments").getByRole("columnheader", { name: /Endpoint ≠ terminal \(async policies, delay > 0\)/ }),
  ).toBeVisible();
});

test("a viewer sees no way to start an experiment, and the form's page refuses them", async ({ browser }) => {
  const context = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page.getByRole("link", { name: /New experiment|Start a new experiment/ })).toHaveCount(0);
  await page.goto("/experiments/new");
  await expect(page).toHaveURL(/\/forbidden/);
  await context.close();
});
