import type { Locator, Page } from "@playwright/test";
import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { WORKED_POLICY, workedExample } from "../lib/testing/evaluation-example";

// Density and navigation (docs/dashboard.md) on a 1440x900 laptop screen: the experiment and evaluation pages
// open on their headline figures and main table, a sticky contents bar jumps to each group of
// sections without hiding the heading it jumps to and marks the group being read, and each long
// explanation waits behind a "How to read this" disclosure.
test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")), viewport: { width: 1440, height: 900 } });

const SCREEN_HEIGHT = 900;
const GROUPS = ["Headline", "Results", "Statistics", "Runs", "Settings"];

/** The element's box in the viewport (it must be rendered). */
async function box(locator: Locator) {
  const found = await locator.boundingBox();
  expect(found, `${locator} has no box`).not.toBeNull();
  return found!;
}

/**
 * The checks both pages share: on load the headline and the main table start on the first screen;
 * the bar lists every group as a plain in-page link; its Statistics link brings that heading into view
 * below the (still visible) bar and marks it current; the page's end marks Settings current.
 */
async function checkContents(page: Page, { headline, mainTable, name }: { headline: Locator; mainTable: Locator; name: string }) {
  const bar = page.getByRole("navigation", { name: "Contents" });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute("data-testid", "contents-bar");
  await expect(bar.getByRole("link")).toHaveText(GROUPS);
  for (const group of GROUPS) await expect(bar.getByTestId(`contents-${group.toLowerCase()}`)).toHaveAttribute("href", /^#[\w-]+$/);

  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  expect((await box(headline)).y).toBeLessThan(SCREEN_HEIGHT);
  expect((await box(mainTable)).y).toBeLessThan(SCREEN_HEIGHT);
  await expect(mainTable).toBeInViewport();
  await expect(bar.getByTestId("contents-headline")).toHaveAttribute("aria-current", "location");
  await page.screenshot({ path: `test-results/${name}-first-screen.png` });

  await bar.getByTestId("contents-statistics").click();
  await expect(page).toHaveURL(/#statistics$/);
  const heading = page.getByRole("heading", { level: 2, name: "Statistics", exact: true });
  await expect(heading).toBeInViewport();
  await expect(bar).toBeInViewport(); // sticky: still there after the jump
  await page.screenshot({ path: `test-results/${name}-statistics-jump.png` });
  // Polled: the statistics re-render as their API answers, and a heading being swapped has no box for that instant (CI saw it).
  await expect
    .poll(async () => {
      const [headingBox, barBox] = [await heading.boundingBox(), await bar.boundingBox()];
      return headingBox && barBox ? headingBox.y - (barBox.y + barBox.height) : null;
    })
    .toBeGreaterThanOrEqual(0);
  await expect(bar.getByTestId("contents-statistics")).toHaveAttribute("aria-current", "location");
  await expect(bar.locator("[aria-current]")).toHaveCount(1);

  // Scrolled again until it holds: sections that load after the page (the statistics, charts) can lengthen it
  // after one scroll to the bottom (CI saw it).
  await expect(async () => {
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(bar.getByTestId("contents-settings")).toHaveAttribute("aria-current", "location", { timeout: 1_000 });
  }).toPass();
}

/** A closed disclosure hides its text until opened; opened, the text is read in full. */
async function checkHowToRead(section: Locator, fullText: string) {
  const text = section.getByTestId("how-to-read").getByText(fullText);
  await expect(text).toBeHidden();
  await section.locator("summary", { hasText: "How to read this" }).click();
  await expect(text).toBeVisible();
}

test("the experiment page: headline and Table 2 on the first screen, a contents bar to each group, explanations on request", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto(`/experiments/${accounts().experimentId}`);
  await expect(page.getByTestId("table2")).toBeVisible();
  // Table 2's column headers, not just its first pixel, are on the first screen.
  await checkContents(page, {
    headline: page.getByTestId("stat-disagreement"),
    mainTable: page.getByTestId("table2").locator("thead"),
    name: "experiment",
  });

  // The Runs link goes to the run accounting, its heading clear of the sticky bar.
  await page.getByTestId("contents-runs").click();
  await expect(page).toHaveURL(/#accounting$/);
  await expect(page.getByRole("heading", { level: 2, name: "Run accounting" })).toBeInViewport();

  const table2 = page.locator("#table2");
  await expect(table2.getByText("Each row against what the paper's rules predict for this grid.")).toBeVisible();
  await checkHowToRead(table2, "The paper's published figures are for its own grid");
  await checkHowToRead(page.locator("#separation"), "grouped analysis counts each connected pair once");

  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await seriousViolations(page), colorScheme).toEqual([]);
  }
});

test("the experiment page's statistics come from its API after the page; tables of runs and effects travel as data", async ({ page }) => {
  const { experimentId } = accounts();
  // The page's HTML holds the section's heading, not its tables (the pages' budget: HTML within 150 KB).
  const html = await (await page.request.get(`/experiments/${experimentId}`)).text();
  expect(html).toContain('data-testid="statistics-pending"');
  expect(html).not.toContain('data-testid="statistics-rates"');
  const answer = (await (await page.request.get(`/api/v1/experiments/${experimentId}/statistics`)).json()) as {
    rates: { name: string; n: number; N: number }[];
  };
  expect(answer.rates.length).toBeGreaterThan(0);

  await page.goto(`/experiments/${experimentId}`);
  const rates = page.getByTestId("statistics-rates");
  for (const rate of answer.rates)
    await expect(rates.locator("tr", { has: page.getByRole("rowheader", { name: rate.name, exact: true }) })).toContainText(
      `${rate.n}/${rate.N}`,
    );
  await expect(page.getByTestId("statistics-pending")).toHaveCount(0);
  await expect(page.getByTestId("exclusion-rule-history")).toContainText("declared at creation");

  // A grid's cells are data: no element of theirs is deferred to a chunk the HTML fills in by script
  // ($RS), which cost a script and a hidden copy per cell (341 on a page of 50 effects; the page's own
  // layout has two).
  for (const path of [`/experiments/${experimentId}/runs`, "/effects"]) {
    const listed = await (await page.request.get(path)).text();
    expect(listed, path).toMatch(/<tbody>(<tr>.*?<\/tr>){10,}/);
    expect(listed.split("$RS(").length - 1, path).toBeLessThanOrEqual(4);
  }
});

test("the evaluation page: headline and the rates on the first screen, a contents bar to each group, explanations on request", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "navigation (e2e)", effectPolicy: WORKED_POLICY });
  await client.ingestRuns(id, workedExample());
  await page.goto(`/evaluations/${id}`);
  await expect(page.getByTestId("stat-reported")).toContainText("3/3");
  await checkContents(page, {
    headline: page.getByTestId("stat-reported"),
    mainTable: page.getByRole("img", { name: /^Reported against final-only/ }),
    name: "evaluation",
  });

  await page.getByTestId("contents-runs").click();
  await expect(page).toHaveURL(/#unresolved$/);
  await expect(page.getByRole("heading", { level: 2, name: /^Unresolved runs/ })).toBeInViewport();

  await checkHowToRead(page.locator("#unresolved"), "the reason is its earliest open effect's");
  await checkHowToRead(page.locator("#policy"), "never silently read-only");

  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await seriousViolations(page), colorScheme).toEqual([]);
  }
});
