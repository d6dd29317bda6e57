import { defineConfig } from "vitest/config";

// Layers by suffix: *.test.ts pure, *.http.test.ts against a real service process,
// *.db.test.ts against real PostgreSQL; e2e/*.spec.ts run in Chromium through Playwright.
export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "workers/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["lib/testing/global-setup.ts"],
    // Replays are timing experiments: files run one at a time so that one grid never loads the machine under another.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
