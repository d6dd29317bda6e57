import { readFileSync } from "node:fs";
import type { Locator } from "@playwright/test";
import { parseCsv } from "../lib/testing/test-support";
import { accounts } from "./accounts";
import { apiAs, expect, storageStateFor, test } from "./fixtures";

// The runs list, one run, the open effects and the exports, as a viewer. e2e/serve.ts replayed one
// experiment: delays {0, 25} ms x 1 schedule x 2 repetitions, every policy and condition (24 finality
// runs, 24 pairs); accounts().runId is a snapshot run at 25 ms whose endpoint and terminal labels disagree.

test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("viewer")) });

/** A table's body rows as {column header: cell text}. */
function readRows(table: Locator): Promise<Record<string, string>[]> {
  return table.evaluate((element) => {
    const t = element as HTMLTableElement;
    const headers = Array.from(t.tHead!.rows[0]!.cells, (c) => c.textContent!.trim());
    return Array.from(t.tBodies[0]!.rows, (row) =>
      Object.fromEntries(Array.from(row.cells, (c, i) => [headers[i]!, c.textContent!.trim()])),
    );
  });
}

const runsPath = () => `/experiments/${accounts().experimentId}/runs`;

test("the runs list filters by URL: applied, reloaded and reopened, it shows the same runs", async ({ page }) => {
  await page.goto(runsPath());
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Runs of experiment");
  await expect(page.getByTestId("runs-count")).toHaveText("Showing 50 of 72 matching runs.");
  await expect(page.getByRole("link", { name: "Next page" })).toBeVisible();

  await page.getByLabel("Condition").selectOption("snapshot");
  await page.getByLabel("Delay (ms)").selectOption("25");
  await page.getByLabel("Agreement").selectOption("disagree");
  // Keyboard: the form submits from its button with Enter.
  await page.getByRole("button", { name: "Apply filters" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/condition=snapshot/);
  await expect(page).toHaveURL(/delay=25/);
  await expect(page).toHaveURL(/agreement=disagree/);
  await expect(page.getByTestId("runs-count")).toHaveText("Showing 2 of 2 matching runs.");

  const table = page.getByRole("table", { name: /Runs matching the filters/ });
  const rows = await readRows(table);
  expect(rows).toHaveLength(2);
  for (const row of rows) {
    expect(row).toMatchObject({
      Condition: "snapshot",
      "Delay (ms)": "25",
      Role: "single",
      "Endpoint label": "failure",
      "Terminal label": "success",
      "Recorded label": "failure",
      Agreement: "≠ disagree",
      Exposure: "n/a",
      Classification: "completed",
    });
  }
  await expect(page.getByRole("link", { name: "Next page" })).toHaveCount(0);

  const url = page.url();
  await page.reload();
  expect(await readRows(table)).toEqual(rows);
  await expect(page.getByLabel("Condition")).toHaveValue("snapshot");
  await page.goto("/");
  await page.goto(url);
  expect(await readRows(table)).toEqual(rows);
  await page.screenshot({ path: "test-results/runs.png", fullPage: true });
});

test("a malformed filter is named on the page and refused by the API", async ({ page }) => {
  await page.goto(`${runsPath()}?delay=soon`);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("query.delay: delay must be a whole number");
  const api = await apiAs("viewer");
  const response = await api.get(`/api/v1/experiments/${accounts().experimentId}/runs?agreement=maybe`);
  expect(response.status()).toBe(400);
  expect(((await response.json()) as { error: { field: string } }).error.field).toBe("agreement");
  expect((await api.get(`/api/v1/experiments/${accounts().experimentId}/runs?cursor=forged`)).status()).toBe(400);
  expect((await api.get("/api/v1/experiments/00000000-0000-4000-8000-000000000000/runs")).status()).toBe(404);
  await api.dispose();
});

test("the CSV download holds every matching run, with its header", async ({ page }) => {
  await page.goto(`${runsPath()}?condition=snapshot&delay=25&agreement=disagree`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toBe(`runs-${accounts().experimentId}.csv`);
  const text = readFileSync((await download.path())!, "utf8");
  expect(text.startsWith("\uFEFF")).toBe(true); // so that spreadsheets read it as UTF-8
  const [header, ...records] = parseCsv(text.slice(1));
  expect(header).toContain("recordedLabel");
  expect(records).toHaveLength(2);
  const column = (name: string) => header!.indexOf(name);
  for (const record of records) {
    expect(record[column("condition")]).toBe("snapshot");
    expect(record[column("delayMs")]).toBe("25");
    expect(record[column("agreement")]).toBe("disagree");
    expect(record[column("startedAt")]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Number(record[column("startedAtMs")])).toBeGreaterThan(0);
  }

  const api = await apiAs("viewer");
  const json = (await (
    await api.get(`/api/v1/experiments/${accounts().experimentId}/runs/export?format=json&condition=snapshot&delay=25&agreement=disagree`)
  ).json()) as { id: string }[];
  expect(records.map((r) => r[column("id")]).sort()).toEqual(json.map((r) => r.id).sort());
  await api.dispose();
});

test("a run whose labels disagree shows its timeline, its effect's handle and the evidence that resolved it", async ({ page }) => {
  const api = await apiAs("viewer");
  const detail = (await (await api.get(`/api/v1/runs/${accounts().runId}`)).json()) as {
    run: { endpointLabel: string; terminalLabel: string };
    openEffects: { observationHandle: string; terminalStatus: string }[];
    pairedRun: unknown;
    timeline: { kind: string }[];
  };
  await api.dispose();
  expect(detail.run).toMatchObject({ endpointLabel: "failure", terminalLabel: "success" });
  expect(detail.pairedRun).toBeNull();
  expect(detail.openEffects).toHaveLength(1);
  const handle = detail.openEffects[0]!.observationHandle;

  // From the filtered list, as a visitor would get there.
  await page.goto(`${runsPath()}?condition=snapshot&delay=25&agreement=disagree`);
  await page.getByRole("link", { name: new RegExp(`^Run ${accounts().runId.slice(0, 8)}`) }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${accounts().runId}$`));
  await expect(page.getByTestId("endpoint-label")).toHaveText("failure");
  await expect(page.getByTestId("terminal-label")).toHaveText("success");
  await expect(page.getByTestId("label-explanation")).toContainText("Snapshot scored at the endpoint: the write was still pending");
  await expect(page.getByTestId("effect-handle")).toHaveText(handle);
  await expect(page.getByTestId("terminal-evidence")).toContainText(handle);
  await expect(page.getByTestId("terminal-evidence")).toContainText('"status": "completed"');

  const timeline = await readRows(page.getByRole("table", { name: /^Timeline/ }));
  const kinds = timeline.map((row) => row.Event);
  for (const kind of ["trace step", "request", "acknowledgement", "endpoint", "scoring", "due", "application"])
    expect(kinds).toContain(kind);
  // Snapshot at 25 ms: scored at the endpoint, before the write was applied.
  expect(kinds.indexOf("scoring")).toBeLessThan(kinds.indexOf("application"));
  expect(timeline.find((row) => row.Event === "trace step")!["Since start"]).toBe("+0.000 ms");
  // The trace's one write: pending at the endpoint, applied after scoring.
  const writes = await readRows(page.getByRole("table", { name: /^Writes/ }));
  expect(writes).toHaveLength(1);
  expect(writes[0]).toMatchObject({ Write: "1 of 1", "Status at endpoint": "pending", Resolution: "completed" });
  expect(writes[0]!["Open interval"]).toContain("ended after scoring");
  // A viewer may not share.
  await expect(page.getByRole("button", { name: "Share read-only link…" })).toHaveCount(0);
  await page.screenshot({ path: "test-results/run.png", fullPage: true });
});

test("a separation run links its paired run", async ({ page }) => {
  await page.goto(`${runsPath()}?condition=shared&delay=25&role=B&exposure=exposed`);
  await expect(page.getByTestId("runs-count")).toHaveText("Showing 2 of 2 matching runs.");
  await page
    .getByRole("table", { name: /Runs matching the filters/ })
    .getByRole("link")
    .first()
    .click();
  await expect(page.getByTestId("label-explanation")).toContainText("exposure");
  await page.getByTestId("paired-run").click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Run");
  await expect(page.getByText("Run B of this pair").first()).toBeVisible();
});

test("an unknown or malformed run id is a 404", async ({ page }) => {
  expect((await page.goto("/runs/not-a-uuid"))?.status()).toBe(404);
  expect((await page.goto("/runs/00000000-0000-4000-8000-000000000000"))?.status()).toBe(404);
});

test("the open effects list records unresolved first, each linking to its run", async ({ page }) => {
  await page.goto("/effects");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Open effects");
  const rows = await readRows(page.getByRole("table", { name: /Open-effects records, unresolved first/ }));
  expect(rows.length).toBeGreaterThan(0);
  const statuses = rows.map((row) => row["Terminal status"]);
  const firstResolved = statuses.findIndex((s) => s !== "unresolved");
  expect(statuses.slice(firstResolved === -1 ? statuses.length : firstResolved)).not.toContain("unresolved");
  await page.screenshot({ path: "test-results/effects.png", fullPage: true });

  // The experiment filter narrows to the replay's records: every finality trial and every A that wrote.
  await page.getByLabel("Experiment", { exact: true }).selectOption(accounts().experimentId);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`experiment=${accounts().experimentId}`));
  await expect(page.getByTestId("effects-count")).toHaveText(/^Showing 44 of 44 matching records \(\d+ unresolved\)\.$/);
  await page
    .getByRole("link", { name: /^snapshot, 25 ms, schedule 1, repetition \d$/ })
    .first()
    .click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("effect-handle")).toBeVisible();
});
