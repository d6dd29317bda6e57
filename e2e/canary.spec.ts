import { apiAs, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";

// The canary reset check (docs/replay.md) in Chromium: an editor starts a canary experiment from
// the new-experiment form; the worker runs it against the delayed-write service; its page shows,
// per condition and surface, found n/N, the evidence and held n/N; the API answers the same.

test("an editor starts a canary experiment from the form and reads the per-surface table", async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto("/experiments/new");
  await page.getByLabel(/Canary reset check/).check();
  await expect(page.getByLabel("Delays (ms, comma-separated)")).toHaveCount(0);
  await page.getByLabel("Name (optional)").fill("Canary from the form");
  await page.getByLabel("Trials per condition").fill("0");
  await page.getByRole("button", { name: "Start experiment" }).click();
  await expect(page.locator("#trials-error")).toContainText("Trials per condition");
  await page.getByLabel("Trials per condition").fill("2");
  await page.getByRole("button", { name: "Start experiment" }).click();
  await expect(page).toHaveURL(/\/experiments\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop()!;

  // The page refreshes itself once the experiment is final.
  await expect(page.getByTestId("experiment-state")).toHaveText("completed", { timeout: 60_000 });
  const table = page.getByTestId("canary-table");
  await expect(table).toBeVisible();
  await expect(page.getByTestId("canary-held")).toHaveText("18/18");
  for (const surface of ["values", "operation_list", "pending_operations"]) {
    await expect(page.getByTestId(`canary-shared-${surface}`).getByTestId("canary-found")).toHaveText("2/2");
    await expect(page.getByTestId(`canary-namespaced-${surface}`).getByTestId("canary-found")).toHaveText("0/2");
    await expect(page.getByTestId(`canary-verified_reset-${surface}`).getByTestId("canary-found")).toHaveText("0/2");
    await expect(page.getByTestId(`canary-verified_reset-${surface}`).getByTestId("canary-row-held")).toHaveText("2/2");
  }
  await expect(page.getByTestId("canary-shared-pending_operations")).toContainText(/operation op_[0-9a-f-]+ \(pending\) carries it/);
  await expect(page.getByTestId("canary-namespaced-values")).toContainText("no match");
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/canary-experiment.png", fullPage: true });
  // The list names its kind instead of a grid.
  await page.goto("/?name=Canary%20from%20the%20form");
  await expect(page.getByTestId("experiments")).toContainText("canary reset check");
  await context.close();

  const editor = await apiAs("editor");
  const results = (await (await editor.get(`/api/v1/experiments/${id}/canary`)).json()) as {
    held: { n: number; N: number };
    surfaces: Array<{ condition: string; surface: string; found: number; trials: number }>;
  };
  expect(results.held).toEqual({ n: 18, N: 18 });
  expect(results.surfaces.filter((s) => s.found > 0).map((s) => s.condition)).toEqual(["shared", "shared", "shared"]);
});
