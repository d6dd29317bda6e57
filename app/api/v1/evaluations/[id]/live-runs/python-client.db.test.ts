import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "@/lib/delayed-write/spawn";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";

// The Python client (clients/python/) as a user gets it: installed with its README's command into a
// fresh virtual environment of Debian's Python (no setuptools, no wheel, no registry), then its
// unittest suite run against Boundary Lab's route handlers served over real HTTP on a real PostgreSQL,
// with the delayed-write service for its bank scenario. e2e/python-client.spec.ts does the same
// against the built web app.
const run = promisify(execFile);
const PYTHON = "/usr/bin/python3";
const CLIENT = path.resolve("clients/python");

let database: TestDatabase;
let api: { origin: string; close(): Promise<void> };
let key: string;
let service: ServiceProcess;
let scratch: string;

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "python"));
  const [runs, summary, open, read, events, score] = await Promise.all([
    import("../runs/route"),
    import("../summary/route"),
    import("./route"),
    import("./[externalId]/route"),
    import("./[externalId]/events/route"),
    import("./[externalId]/score/route"),
  ]);
  const root = await import("../../route");
  api = await serveRoutes([
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: root.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/runs$/, methods: { POST: runs.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs$/, methods: { POST: open.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)$/, methods: { GET: read.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/events$/, methods: { POST: events.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)\/score$/, methods: { POST: score.POST } },
  ]);
  service = await spawnDelayedWriteService();
  // Outside the checkout: a virtual environment's symlinks inside it break `next build` (Turbopack follows them).
  scratch = mkdtempSync(path.join(tmpdir(), "bl-python-client-"));
}, 120_000);

afterAll(async () => {
  await api?.close();
  await service?.stop();
  await database?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Every file under clients/python but bytecode, as paths relative to it. */
function checkoutFiles(): string[] {
  return (readdirSync(CLIENT, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
    .filter((entry) => entry.isFile() && !entry.parentPath.split(path.sep).includes("__pycache__"))
    .map((entry) => path.relative(CLIENT, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe("the Python client", () => {
  let venv: string;

  it("installs offline into a fresh virtual environment with its README's command, writing nothing into the checkout", async () => {
    venv = path.join(scratch, "venv");
    // No --system-site-packages: neither setuptools nor wheel is there to build with.
    await run(PYTHON, ["-m", "venv", venv]);
    const before = checkoutFiles();
    const installed = await run(`${venv}/bin/pip`, ["install", "--no-index", "./clients/python"]);
    expect(installed.stdout).toContain("Successfully installed boundary-lab-0.1.0");
    expect(checkoutFiles()).toEqual(before);
    const { stdout } = await run(`${venv}/bin/python`, ["-c", "import boundary_lab, os; print(os.path.dirname(boundary_lab.__file__))"], {
      cwd: scratch,
    });
    expect(stdout.trim()).toMatch(new RegExp(`^${venv}/lib/python3\\.[0-9]+/site-packages/boundary_lab$`));
  }, 120_000);

  it("passes its unittest suite against the route handlers", async () => {
    expect(venv, "installed by the test before").toBeDefined();
    // From the tests' folder, so that `boundary_lab` is the installed package, not the source tree beside it.
    const tests = await run(`${venv}/bin/python`, ["-m", "unittest", "-v", "test_client"], {
      cwd: path.join(CLIENT, "tests"),
      env: { ...process.env, BOUNDARY_LAB_URL: api.origin, BOUNDARY_LAB_API_KEY: key, DELAYED_WRITE_URL: service.url },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`python -m unittest failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    // unittest reports on stderr: every test ran and passed.
    expect(tests.stderr).toMatch(/Ran 17 tests in [0-9.]+s\n\nOK/);
  }, 180_000);
});
