import type { Locator } from "@playwright/test";
import { expect, storageStateFor, test } from "./fixtures";

// e2e/serve.ts stored one replay of delays {0, 25} ms x 1 schedule x 2 repetitions: every finality
// policy has 4 trials (2 at a nonzero delay) and every separation condition 4 pairs (8 run rows).

type Table = Record<string, Record<string, string>>;

/** A table's body as {row header: {column header: cell text}}. */
function readTable(table: Locator): Promise<Table> {
  return table.evaluate((element) => {
    const t = element as HTMLTableElement;
    const headers = Array.from(t.tHead!.rows[0]!.cells, (c) => c.textContent!.trim());
    const rows: Record<string, Record<string, string>> = {};
    for (const row of Array.from(t.tBodies[0]!.rows)) {
      const cells = Array.from(row.cells, (c) => c.textContent!.trim());
      rows[cells[0]!] = Object.fromEntries(headers.map((h, i) => [h, cells[i]!]));
    }
    return rows;
  });
}

test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("viewer")) });

test("health reports the web process, its database, a live worker and the delayed-write service", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  // Unsupervised (e2e/serve.ts runs its own stack): no children, nothing degraded.
  expect(await response.json()).toEqual({ status: "ok", db: "ok", worker: "ok", delayedWrite: "ok", degraded: [] });
});

test("the experiment list leads to Table 2 with exact counts", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Boundary Lab" })).toBeVisible();
  const list = page.getByRole("table", { name: /Stored experiments/ });
  // Times render in UTC on the server and in local time with a relative form once hydrated: read after that.
  await expect(list.locator("time").first()).toContainText(/ago|just now/);
  const experiments = await readTable(list);
  // the replay e2e/serve.ts ran at start-up; API tests may add others
  const rows = Object.values(experiments).filter((row) => row.Grid === "1 schedule × delays {0, 25} ms × 2 repetitions");
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    State: "completed",
    Grid: "1 schedule × delays {0, 25} ms × 2 repetitions",
    // snapshot 2 + reconciliation 2 of the 3 asynchronous policies x 2 trials at the nonzero delay (the
    // experiment page's headline population); shared 2 + grouped 2 of 6 conditions x 4 pairs
    "Endpoint ≠ terminal (async policies, delay > 0)": "4/6",
    "Exposures / separation pairs": "4/24",
  });
  // Local time with a relative form; the exact UTC time is on hover and in the datetime attribute.
  expect(rows[0]!.Created).toMatch(/ago|just now/);
  const created = list.getByRole("row").filter({ hasText: "1 schedule × delays {0, 25} ms × 2 repetitions" }).locator("time");
  await expect(created).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await expect(created).toHaveAttribute("title", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await page.screenshot({ path: "test-results/experiments.png", fullPage: true });

  await list.getByRole("row").filter({ hasText: "1 schedule × delays {0, 25} ms × 2 repetitions" }).getByRole("link").click();
  await expect(page).toHaveURL(/\/experiments\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/experiment/i);
  await expect(page.getByTestId("experiment-state")).toHaveText("completed");

  const finality = await readTable(page.getByRole("table", { name: "Outcome finality by policy" }));
  const f = (successes: string, successesNonzero: string, disagreements: string, disagreementsNonzero: string) => ({
    "Recorded successes": successes,
    "Recorded successes at nonzero delay": successesNonzero,
    Disagreements: disagreements,
    "Disagreements at nonzero delay": disagreementsNonzero,
  });
  expect(finality).toEqual({
    snapshot: { Policy: "snapshot", ...f("2/4", "0/2", "2/4", "2/2") },
    reconciliation: { Policy: "reconciliation", ...f("4/4", "2/2", "2/4", "2/2") },
    "verified cancellation": { Policy: "verified cancellation", ...f("2/4", "0/2", "0/4", "0/2") },
    "synchronous control: snapshot": { Policy: "synchronous control: snapshot", ...f("4/4", "2/2", "0/4", "0/2") },
    "synchronous control: reconciliation": { Policy: "synchronous control: reconciliation", ...f("4/4", "2/2", "0/4", "0/2") },
    "synchronous control: verified cancellation": {
      Policy: "synchronous control: verified cancellation",
      ...f("4/4", "2/2", "0/4", "0/2"),
    },
  });

  const separation = await readTable(page.getByRole("table", { name: "Cross-unit separation by condition" }));
  const s = (exposures: string, units: string, meanScore: string) => ({
    "Exposures / pairs": exposures,
    "Run rows": "8",
    "Analysis units": units,
    "B's mean score": meanScore,
  });
  expect(separation).toEqual({
    "shared state": { Condition: "shared state", ...s("2/4", "8", "0.50") },
    "namespaced state": { Condition: "namespaced state", ...s("0/4", "8", "1.00") },
    "verified reset": { Condition: "verified reset", ...s("0/4", "8", "1.00") },
    "no-write control": { Condition: "no-write control", ...s("0/4", "8", "1.00") },
    "B before A": { Condition: "B before A", ...s("0/4", "8", "1.00") },
    "grouped analysis": { Condition: "grouped analysis", ...s("2/4", "4", "0.50") },
  });

  const delays = await readTable(page.getByRole("table", { name: /Measured delay/ }));
  expect(Object.keys(delays)).toEqual(["0 ms", "25 ms"]);
  for (const row of Object.values(delays)) {
    expect(row["Median measured"]).toMatch(/^\d+\.\d\d ms$/);
    expect(row["p99 measured"]).toMatch(/^\d+\.\d\d ms$/);
    expect(Number(row["Writes measured (n)"])).toBeGreaterThan(0);
  }

  // 6 policies x 4 trials + 6 conditions x 4 pairs x 2 runs = 72 runs, all completed.
  const accounting = await readTable(page.getByRole("table", { name: /by classification/ }));
  expect(Object.fromEntries(Object.entries(accounting).map(([k, v]) => [k, v.Runs]))).toEqual({
    completed: "72/72",
    "agent failure": "0/72",
    "protocol stop": "0/72",
    "environment failure": "0/72",
    "missing evidence": "0/72",
    "Unresolved terminal label (any classification above)": "0/72",
  });

  const checksTable = page.getByRole("table", { name: /^Implementation checks/ });
  const checks = await readTable(checksTable);
  const names = Object.keys(checks);
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) expect(checks[name]!.Result, `${name}: ${checks[name]!.Evidence}`).toBe("pass");
  await expect(checksTable.locator("caption")).toHaveText(`Implementation checks: ${names.length}/${names.length} passed`);

  await page.screenshot({ path: "test-results/experiment.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/experiment-phone.png", fullPage: true });
});

test("an unknown or malformed experiment id is a 404", async ({ page }) => {
  for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
    const response = await page.goto(`/experiments/${id}`);
    expect(response?.status(), id).toBe(404);
    await expect(page.getByText("This page could not be found.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Boundary Lab" })).toBeVisible();
  }
});
