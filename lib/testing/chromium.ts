// How Chromium is launched here, by the browser tests (playwright.config.ts) and the benchmarks that
// load pages (scripts/first-load-js-browser.ts): Debian's Chromium, headless;
// `npx playwright install` is never used on these machines (docs/stack.md).
export const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};
