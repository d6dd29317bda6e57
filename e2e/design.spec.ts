import { mkdirSync, copyFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { accounts } from "./accounts";
import { drawCharts, seriousViolations, timeProblems } from "./page-checks";
import { apiAs, expect, storageStateFor, test } from "./fixtures";
import { COMPARISON_POLICY, comparisonExample } from "../lib/testing/comparison-example";

// The design system in Chromium: every page passes axe (no serious or critical violation) in both
// themes, the theme toggle and the system setting both render dark mode (a screenshot per theme is
// kept in test-results/), a runs table sorts by a column, and the README's two screenshots.
// Independent tests: one failing does not skip the others.
test.describe.configure({ mode: "default" });

// One test per theme, each with its own time: axe over every page is slow on a loaded machine.
for (const colorScheme of ["light", "dark"] as const)
  test(`every page passes axe with no serious or critical violation and shows local times with UTC on hover, in the ${colorScheme} theme`, async ({
    browser,
  }) => {
    test.setTimeout(420_000); // sixteen pages, on a machine several checkouts share
    const { experimentId, runId, traceId } = accounts();
    const editor = await apiAs("editor");
    const share = await editor.post("/api/v1/share-links", { data: { resourceType: "experiment", resourceId: experimentId } });
    expect(share.status()).toBe(201);
    const shareUrl = ((await share.json()) as { url: string }).url;
    const protocols = (await (await editor.get("/api/v1/protocols")).json()) as { protocols: { id: string }[] };
    // Three evaluations to compare (an evaluation's page, with its statistics, is checked in e2e/evaluations.spec.ts).
    const compared: string[] = [];
    for (const [key, runs] of Object.entries(comparisonExample())) {
      const created = await editor.post("/api/v1/evaluations", {
        data: { name: `axe comparison ${key} (${colorScheme})`, effectPolicy: COMPARISON_POLICY },
      });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await editor.post(`/api/v1/evaluations/${id}/runs`, { data: { runs } })).status()).toBe(200);
      compared.push(id);
    }
    await editor.dispose();

    const signedIn = [
      "/",
      `/experiments/${experimentId}`,
      `/experiments/${experimentId}/runs`,
      `/runs/${runId}`,
      "/effects",
      "/evaluations",
      "/evaluations/import",
      `/evaluations/compare?ids=${compared.join(",")}`,
      "/traces",
      `/traces/${traceId}`,
      "/protocols",
      `/protocols/${protocols.protocols[0]!.id}`,
      `/protocols/${protocols.protocols[0]!.id}/completion-argument`,
      "/experiments/new",
      "/account",
      "/admin",
      "/experiments/00000000-0000-4000-8000-000000000000",
    ];
    const found: Record<string, string[]> = {};
    const admin = await browser.newContext({ storageState: await storageStateFor("admin"), colorScheme });
    const page = await admin.newPage();
    for (const path of signedIn) {
      await page.goto(path);
      await drawCharts(page);
      found[`${colorScheme} ${path}`] = [...(await seriousViolations(page)), ...(await timeProblems(page))];
    }
    // A dialog open (focus trapped inside, labelled by its title).
    await page.goto(`/experiments/${experimentId}`);
    await page.getByRole("button", { name: "Share read-only link…" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    found[`${colorScheme} share dialog`] = await seriousViolations(page);
    await admin.close();

    const viewer = await browser.newContext({ storageState: await storageStateFor("viewer"), colorScheme });
    const forbidden = await viewer.newPage();
    await forbidden.goto("/admin");
    await expect(forbidden).toHaveURL(/\/forbidden/);
    found[`${colorScheme} /forbidden`] = await seriousViolations(forbidden);
    await viewer.close();

    const anonymous = await browser.newContext({ colorScheme });
    const page2 = await anonymous.newPage();
    for (const path of ["/login", shareUrl]) {
      await page2.goto(path);
      await drawCharts(page2);
      found[`${colorScheme} ${path.includes("/s/") ? "/s/<token>" : path}`] = await seriousViolations(page2);
    }
    await anonymous.close();
    expect(Object.entries(found).filter(([, v]) => v.length)).toEqual([]);
    expect(Object.keys(found).length).toBe(signedIn.length + 4);
  });

test("dark mode follows the system setting and the toggle, and the choice survives a reload", async ({ browser }) => {
  // Three loads of the experiment page (with its statistics section) and a full-page screenshot: more than 30 s on a loaded machine.
  test.setTimeout(60_000);
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const context = await browser.newContext({
    storageState: await storageStateFor("editor"),
    colorScheme: "dark",
    viewport: { width: 1440, height: 900 },
  });
  const page = await context.newPage();
  await page.goto(`/experiments/${accounts().experimentId}`);
  // No choice made: the system's dark setting applies through CSS alone.
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /./);
  expect(await background(page)).toBe("rgb(14, 16, 20)");
  await expect(page.getByRole("button", { name: "System theme" })).toHaveAttribute("aria-pressed", "true");
  await page.screenshot({ path: "test-results/theme-system-dark.png" });

  await page.getByRole("button", { name: "Light theme" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await background(page)).toBe("rgb(247, 248, 250)");
  await page.screenshot({ path: "test-results/theme-light.png" });

  await page.getByRole("button", { name: "Dark theme" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark"); // rendered by the server from the cookie
  expect(await background(page)).toBe("rgb(14, 16, 20)");
  await drawCharts(page);
  await page.screenshot({ path: "test-results/theme-dark.png", fullPage: true });

  // Keyboard only: the toggle is reachable and works with Enter.
  await page.getByRole("button", { name: "System theme" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /./);
  await context.close();
});

test("a runs table sorts by a column, both ways, from the mouse and the keyboard", async ({ browser }) => {
  const context = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const page = await context.newPage();
  await page.goto(`/experiments/${accounts().experimentId}/runs?condition=snapshot`);
  const table = page.getByTestId("runs-table");
  const column = async (name: string) => {
    const index = await table.locator("thead th").evaluateAll((ths, n) => ths.findIndex((th) => th.textContent?.trim() === n), name);
    return table
      .locator("tbody tr")
      .evaluateAll((rows, i) => rows.map((r) => (r as HTMLTableRowElement).cells[i]!.textContent!.trim()), index);
  };
  const header = table.getByRole("columnheader", { name: "Delay (ms)" });
  await header.getByRole("button").click();
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  const ascending = (await column("Delay (ms)")).map(Number);
  expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
  expect(new Set(ascending)).toEqual(new Set([0, 25]));
  await header.getByRole("button").focus();
  await page.keyboard.press("Enter");
  await expect(header).toHaveAttribute("aria-sort", "descending");
  const descending = (await column("Delay (ms)")).map(Number);
  expect(descending).toEqual([...ascending].reverse());

  // Text columns sort as text.
  const label = table.getByRole("columnheader", { name: "Endpoint label" });
  await label.getByRole("button").click();
  const labels = await column("Endpoint label");
  expect(labels).toEqual([...labels].sort());
  await context.close();
});

test("the README's screenshots: an experiment page and a run page", async ({ browser }) => {
  test.setTimeout(120_000);
  const editor = await apiAs("editor");
  const created = await editor.post("/api/v1/experiments", {
    data: {
      delaysMs: [0, 25, 100],
      schedules: 2,
      repetitions: 3,
      name: "Paper mechanism, small grid",
      notes: "Three delays, two schedules, three repetitions: every policy and condition.",
    },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await editor.get(`/api/v1/experiments/${id}`)).json()) as { state: string }).state, { timeout: 60_000 })
    .toBe("completed");
  const runs = (await (
    await editor.get(`/api/v1/experiments/${id}/runs?condition=snapshot&delay=25&agreement=disagree&limit=1`)
  ).json()) as { runs: { id: string }[] };
  await editor.dispose();

  // As a viewer: the page as most readers see it (no edit or share controls).
  const context = await browser.newContext({
    storageState: await storageStateFor("viewer"),
    colorScheme: "light",
    viewport: { width: 1440, height: 1000 },
  });
  const page = await context.newPage();
  await page.goto(`/experiments/${id}`);
  await expect(page.getByTestId("experiment-name")).toHaveText("Paper mechanism, small grid");
  await drawCharts(page);
  mkdirSync("test-results/readme", { recursive: true });
  await page.screenshot({ path: "test-results/readme/experiment.png" });
  await page.goto(`/runs/${runs.runs[0]!.id}`);
  await expect(page.getByTestId("endpoint-label")).toHaveText("failure");
  await page.screenshot({ path: "test-results/readme/run.png" });
  await context.close();
  // `UPDATE_DOCS_SCREENSHOTS=1 npx playwright test e2e/design.spec.ts` refreshes the README's copies.
  if (process.env.UPDATE_DOCS_SCREENSHOTS === "1") {
    mkdirSync("docs/screenshots", { recursive: true });
    for (const name of ["experiment", "run"]) copyFileSync(`test-results/readme/${name}.png`, `docs/screenshots/${name}.png`);
  }
});
