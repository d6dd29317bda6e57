import { request } from "@playwright/test";
import { accounts, bearer, PASSWORD } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";

// The controls (docs/dashboard.md), in Chromium: cancel an experiment from its page, name one and find it
// by name, share, copy and revoke a link from the experiment page, and deactivate a user whose API
// key is then refused.
// Independent tests: one failing does not skip the others.
test.describe.configure({ mode: "default" });

test("an editor cancels a running experiment from its page, after confirming, and sees it cancelled", async ({ browser }) => {
  test.setTimeout(90_000);
  const editor = await apiAs("editor");
  const { id } = (await (
    await editor.post("/api/v1/experiments", { data: { delaysMs: [250], schedules: 5, repetitions: 10, name: "to be cancelled" } })
  ).json()) as { id: string };
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto(`/experiments/${id}`);
  await expect(page.getByTestId("progress-state")).toHaveText(/queued|running/);
  // Checks and Table 2 are pending while it runs, not failing.
  await expect(page.getByTestId("stat-checks")).toContainText("pending");
  await expect(page.getByTestId("table2").getByText("pending").first()).toBeVisible();
  await expect(page.getByTestId("table2").getByText(/^no$/)).toHaveCount(0);

  await page.getByRole("button", { name: "Cancel experiment" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("runs are stored");
  // "Keep running" closes without acting.
  await dialog.getByRole("button", { name: "Keep running" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("progress-state")).toHaveText(/queued|running/);

  await page.getByRole("button", { name: "Cancel experiment" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel experiment" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Experiment cancelled" })).toBeVisible();
  await expect(page.getByTestId("progress-state")).toHaveText("cancelled");
  await expect(page.getByTestId("experiment-state")).toHaveText("cancelled"); // the page refreshed itself
  await expect(page.getByRole("button", { name: "Cancel experiment" })).toHaveCount(0);
  expect(((await (await editor.get(`/api/v1/experiments/${id}`)).json()) as { state: string }).state).toBe("cancelled");
  // Stopped early: Table 2 says incomplete, not "no".
  await expect(page.getByTestId("table2").getByText("incomplete").first()).toBeVisible();
  await page.screenshot({ path: "test-results/cancelled.png", fullPage: true });
  // A viewer sees no cancel button.
  const viewer = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const viewerPage = await viewer.newPage();
  await viewerPage.goto(`/experiments/${id}`);
  await expect(viewerPage.getByTestId("experiment-state")).toHaveText("cancelled");
  await expect(viewerPage.getByRole("button", { name: /Cancel experiment|Edit name/ })).toHaveCount(0);
  await viewer.close();
  await context.close();
  await editor.dispose();
});

test("an experiment named in the form is found by its name in the list", async ({ browser }) => {
  test.setTimeout(60_000);
  const name = `Named in the form ${Date.now()}`;
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto("/experiments/new");
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByLabel("Notes (optional)").fill("x".repeat(4001));
  await expect(page.locator("#notes-counter")).toHaveText("4,001 / 4,000 characters");
  await page.getByLabel("Delays (ms, comma-separated)").fill("0");
  await page.getByLabel("Schedules").fill("1");
  await page.getByLabel("Repetitions").fill("1");
  await page.getByRole("button", { name: "Start experiment" }).click();
  await expect(page.locator("#notes-error")).toHaveText("Notes must be at most 4,000 characters (it has 4,001)");
  await page.getByLabel("Notes (optional)").fill("Found by name in the e2e test.");
  await page.getByRole("button", { name: "Start experiment" }).click();
  await expect(page).toHaveURL(/\/experiments\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("experiment-name")).toHaveText(name);
  await expect(page.getByTestId("experiment-notes")).toHaveText("Found by name in the e2e test.");
  const id = page.url().split("/").pop()!;

  await page.goto("/");
  await page.getByLabel("Name contains").fill(name.slice(0, 20).toUpperCase());
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/name=/);
  const list = page.getByTestId("experiments");
  await expect(list.getByRole("link", { name })).toHaveAttribute("href", `/experiments/${id}`);
  await expect(list).toContainText("Found by name in the e2e test.");
  await page.getByLabel("Name contains").fill(`${name} and nothing else`);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByTestId("experiments-empty")).toContainText("No experiment matches these filters");
  await context.close();
});

test("an editor renames an experiment and edits its notes from its page", async ({ browser }) => {
  const editor = await apiAs("editor");
  const { id } = (await (await editor.post("/api/v1/experiments", { data: { delaysMs: [0], schedules: 1, repetitions: 1 } })).json()) as {
    id: string;
  };
  await editor.dispose();
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto(`/experiments/${id}`);
  await page.getByRole("button", { name: "Edit name and notes" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name").fill("x".repeat(201));
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByTestId("field-error")).toHaveText("Name must be at most 200 characters (it has 201)");
  await dialog.getByLabel("Name").fill("Renamed from its page");
  await dialog.getByLabel("Notes").fill("Delays {0, 25} ms, one schedule, two repetitions.");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Name and notes saved" })).toBeVisible();
  await expect(page.getByTestId("experiment-name")).toHaveText("Renamed from its page");
  await expect(page.getByTestId("experiment-notes")).toHaveText("Delays {0, 25} ms, one schedule, two repetitions.");
  await page.goto("/?name=renamed%20from");
  await expect(page.getByTestId("experiments").getByRole("link", { name: "Renamed from its page" }).first()).toHaveAttribute(
    "href",
    `/experiments/${id}`,
  );
  await context.close();
});

test("an admin shares an experiment from its page, copies the link, sees its use, and revokes it in place", async ({ browser }) => {
  const context = await browser.newContext({ storageState: await storageStateFor("admin") });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE_URL });
  const page = await context.newPage();
  await page.goto(`/experiments/${accounts().experimentId}`);
  const panel = page.locator("#sharing");
  // The panel streams in with the report (at the page's end), then loads its list: wait for both.
  await expect(panel.getByRole("button", { name: "Share read-only link…" })).toBeVisible();
  await expect(panel.getByRole("status", { name: "Loading share links" })).toHaveCount(0); // the list has loaded
  const rowsBefore = await panel.getByTestId("share-link-row").count();
  await panel.getByRole("button", { name: "Share read-only link…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel(/Live: follows/).check();
  await dialog.getByLabel("Expires").selectOption("7");
  await dialog.getByRole("button", { name: "Create link" }).click();
  const url = await dialog.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${BASE_URL}/s/[A-Za-z0-9_-]{43}$`));
  await dialog.getByRole("button", { name: "Copy link" }).click();
  await expect(dialog.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(panel.getByTestId("share-link-row")).toHaveCount(rowsBefore + 1);

  // Someone opens it; the list shows the use.
  const anonymous = await browser.newContext();
  const reader = await anonymous.newPage();
  await reader.goto(url);
  await expect(reader.getByTestId("share-banner")).toContainText("Live view");
  await page.reload();
  // The page streams its statistics too now: wait for the share list itself, not a fixed 5 s.
  await expect(panel.getByTestId("share-link-row")).toHaveCount(rowsBefore + 1, { timeout: 20_000 });
  const row = panel.getByTestId("share-link-row").first(); // newest first
  await expect(row).toContainText("live");
  await expect(row).toContainText("active");
  await expect(row.getByRole("cell").nth(3)).toHaveText("1"); // mode, status, expires, uses

  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke link" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Link revoked" })).toBeVisible();
  await expect(panel.getByTestId("share-link-row").first()).toContainText("revoked");
  await reader.goto(url);
  await expect(reader.getByRole("heading", { name: "Link revoked" })).toBeVisible();
  await page.screenshot({ path: "test-results/share-panel.png", fullPage: true });
  await anonymous.close();
  await context.close();
});

test("an admin deactivates a user: their API key is refused at once; reactivated, they can sign in again", async ({ browser }) => {
  const admin = await apiAs("admin");
  const stamp = Date.now();
  const email = `deactivated.${stamp}@e2e.test`;
  const user = (await (await admin.post("/api/v1/users", { data: { email, password: PASSWORD, role: "editor" } })).json()) as {
    id: string;
  };
  const keyName = `harness ${stamp}`;
  const created = await admin.post("/api/v1/api-keys", { data: { name: keyName, userId: user.id } });
  expect(created.status()).toBe(201);
  const { key } = (await created.json()) as { key: string };
  const script = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(key) });
  expect((await script.get("/api/v1/me")).status()).toBe(200);

  const context = await browser.newContext({ storageState: await storageStateFor("admin") });
  const page = await context.newPage();
  await page.goto("/admin");
  // Every API key with its owner and last use.
  await expect(page.getByTestId("all-api-keys").getByRole("row", { name: new RegExp(keyName) })).toContainText(email);
  const row = page.getByTestId("users").getByRole("row", { name: new RegExp(email) });
  // Its time in the relative form the browser renders once the table is hydrated: a click before that opened no dialog (CI, load 3).
  await expect(row.locator("time")).toContainText(/ago|just now/);
  await row.getByRole("button", { name: "Deactivate" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Deactivate" }).click();
  await expect(row.getByTestId("user-status")).toHaveText("deactivated");
  expect((await script.get("/api/v1/me")).status()).toBe(401);

  // A password reset, then reactivation: they sign in with the new password.
  await row.getByRole("button", { name: "Reset password…" }).click();
  await page
    .getByRole("dialog")
    .getByLabel(/New password/)
    .fill("short");
  await page.getByRole("dialog").getByRole("button", { name: "Set password" }).click();
  await expect(page.getByRole("dialog").getByTestId("field-error")).toContainText("at least 12 characters");
  await page
    .getByRole("dialog")
    .getByLabel(/New password/)
    .fill("a brand new password 42");
  await page.getByRole("dialog").getByRole("button", { name: "Set password" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "reset" })).toBeVisible();
  await row.getByRole("button", { name: "Reactivate" }).click();
  await expect(row.getByTestId("user-status")).toHaveText("active");
  const signIn = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL, "x-forwarded-for": "10.8.0.1" } });
  expect((await signIn.post("/api/auth/sign-in/email", { data: { email, password: "a brand new password 42" } })).status()).toBe(200);
  await signIn.dispose();
  await script.dispose();
  await context.close();
  await admin.dispose();
  expect(accounts().users.admin.email).toBe("admin@e2e.test");
});
