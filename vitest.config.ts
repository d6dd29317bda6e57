import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Layers by suffix: *.test.ts pure (*.process.test.ts: with throwaway child processes), *.http.test.ts against a real service process,
// *.db.test.ts against real PostgreSQL; e2e/*.spec.ts run in Chromium through Playwright.
export default defineConfig({
  // Modules that only the web server may load say so with `import "server-only"`, whose default
  // export throws outside React's server build; the tests load them as the server would.
  // `@/` is the app's import root (tsconfig paths), so that tests can call route handlers.
  resolve: { alias: { "server-only": fileURLToPath(new URL("node_modules/server-only/empty.js", import.meta.url)), "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // app/: tests of the route handlers themselves (lib/ may not import app/).
    include: ["lib/**/*.test.ts", "workers/**/*.test.ts", "scripts/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["lib/testing/global-setup.ts"],
    // Replays are timing experiments: files run one at a time so that one grid never loads the machine under another.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
