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

/**
 * Wall-clock times not shown as the one formatter (components/ui/time.tsx) shows them: a <time>
 * without its UTC instant on hover or still in its server-rendered UTC form after hydration, and raw
 * ISO instants in the page's text (code and form fields aside, where an exact value is the point).
 */
export async function timeProblems(page: Page): Promise<string[]> {
  // Hydrated: the first <time> (if any) has been rewritten in local time.
  await page
    .waitForFunction(() => [...document.querySelectorAll("time")].every((t) => !t.textContent?.endsWith(" UTC")), null, {
      timeout: 10_000,
    })
    .catch(() => undefined);
  return page.evaluate(() => {
    const problems: string[] = [];
    for (const t of document.querySelectorAll("time")) {
      if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/.test(t.title))
        problems.push(`<time> without the UTC instant on hover: "${t.outerHTML.slice(0, 120)}"`);
      if (t.textContent?.endsWith(" UTC")) problems.push(`<time> not written in local time: "${t.textContent}"`);
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest("pre, code, textarea, input, script, style, time")) continue;
      const iso = node.textContent?.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?/);
      if (iso) problems.push(`raw ISO time in the text: "${iso[0]}"`);
    }
    return problems;
  });
}
