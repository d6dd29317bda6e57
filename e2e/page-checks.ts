// Checks the browser tests run on any page: axe's serious findings, and the lazy charts drawn first.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** axe's serious and critical findings on the page as it is, as readable lines (empty: none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
    );
}

/** Brings every lazily drawn chart into view, so that a check or a screenshot sees them drawn. */
export async function drawCharts(page: Page): Promise<void> {
  for (const chart of await page.locator("figure.chart").all()) {
    await chart.scrollIntoViewIfNeeded();
    // The chart module is fetched on first view: allow for a loaded machine.
    await expect(chart.locator(".recharts-wrapper > svg.recharts-surface")).toBeVisible({ timeout: 20_000 });
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}
