import { defineConfig } from "@playwright/test";
import { CHROMIUM_LAUNCH_OPTIONS } from "./lib/testing/chromium";

// Browser tests (e2e/*.spec.ts) against the production build: run `npx next build` first.
// e2e/serve.ts starts its own embedded PostgreSQL, delayed-write service and replay, so no
// database from the environment is ever touched.
// E2E_PORT: several checkouts on one machine run their browser tests side by side.
const PORT = Number(process.env.E2E_PORT ?? 3107);
const baseURL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "e2e",
  // Playwright empties its outputDir at every run: a subfolder keeps the other reports in test-results/
  // (scripts/test.sh writes vitest.json there first). Failure screenshots and traces land here;
  // e2e/replay.spec.ts saves its page screenshots to test-results/ itself.
  outputDir: "test-results/playwright",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 30_000,
  reporter: [["list"]],
  use: {
    baseURL,
    browserName: "chromium",
    launchOptions: CHROMIUM_LAUNCH_OPTIONS,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
  },
  webServer: {
    // node directly rather than an npx wrapper, so that signals reach the process that stops the stack.
    command: "node --import tsx e2e/serve.ts",
    url: `${baseURL}/api/health`,
    env: { PORT: String(PORT), NEXT_TELEMETRY_DISABLED: "1" },
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
  },
});
