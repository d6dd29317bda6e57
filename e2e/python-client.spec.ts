import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { accounts } from "./accounts";
import { BASE_URL, expect, test } from "./fixtures";

// The Python client (clients/python/, standard library only) installed offline as its README says
// (`pip install --no-index ./clients/python`, into a fresh virtual environment without the system's
// packages: the client builds with its own standard-library backend), then its unittest suite run
// against this instance: batches, retries, live runs and their figures.
const run = promisify(execFile);
// Debian's Python with its venv module (scripts/test.sh installs python3-venv).
const PYTHON = "/usr/bin/python3";

test("the Python client installs offline and its tests pass against a running instance", async () => {
  test.setTimeout(240_000);
  // Outside the checkout: a virtual environment's symlinks inside it break the next `next build` (Turbopack follows them).
  const venv = path.join(mkdtempSync(path.join(tmpdir(), "boundary-lab-python-")), "venv");
  test.info().attach("venv", { body: venv });
  await run(PYTHON, ["-m", "venv", venv]);
  const installed = await run(`${venv}/bin/pip`, ["install", "--no-index", "./clients/python"]);
  expect(installed.stdout).toContain("Successfully installed boundary-lab-0.1.0");
  // Run from the tests' folder, so that `boundary_lab` is the installed package, not the source tree beside it.
  const tests = await run(`${venv}/bin/python`, ["-m", "unittest", "-v", "test_client"], {
    cwd: path.resolve("clients/python/tests"),
    env: {
      ...process.env,
      BOUNDARY_LAB_URL: BASE_URL,
      BOUNDARY_LAB_API_KEY: accounts().users.editor.apiKey,
      DELAYED_WRITE_URL: accounts().delayedWriteUrl,
    },
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`python -m unittest failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
  });
  // unittest reports on stderr: every test ran and passed.
  expect(tests.stderr).toMatch(/Ran 17 tests in [0-9.]+s\n\nOK/);
  const imported = await run(`${venv}/bin/python`, ["-c", "import boundary_lab, os; print(os.path.dirname(boundary_lab.__file__))"], {
    cwd: venv,
  });
  rmSync(path.dirname(venv), { recursive: true, force: true });
  expect(imported.stdout.trim()).toMatch(new RegExp(`^${venv}/lib/python3\\.[0-9]+/site-packages/boundary_lab$`));
});
