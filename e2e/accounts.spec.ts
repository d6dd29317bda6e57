import { request } from "@playwright/test";
import { accounts, bearer, PASSWORD } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";

// Accounts in Chromium: sign-in, an admin making an account, that user changing their password and
// managing an API key; and the rate limits on sign-in and share-token lookups.
test.describe.configure({ mode: "serial" });

const NEW_USER = { email: "new.reviewer@e2e.test", first: "first password 123", second: "second password 456" };

test("an admin creates a reviewer, who signs in, changes their password, and makes and revokes an API key", async ({ browser }) => {
  const adminContext = await browser.newContext({ storageState: await storageStateFor("admin") });
  const admin = await adminContext.newPage();
  await admin.goto("/admin");
  await admin.getByLabel("Email").fill(NEW_USER.email);
  await admin.getByLabel("Initial password").fill("short");
  await admin.getByLabel("Role", { exact: true }).selectOption("reviewer");
  // The browser's own check stops a short password; the server's is tested below through the API.
  await admin.getByLabel("Initial password").fill(NEW_USER.first);
  await admin.getByRole("button", { name: "Create account" }).click();
  await expect(admin.getByRole("row", { name: new RegExp(NEW_USER.email) })).toBeVisible();
  await expect(admin.getByLabel(`Role of ${NEW_USER.email}`)).toHaveValue("reviewer");

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/account");
  await expect(page).toHaveURL(/\/login\?next=%2Faccount/);
  await page.getByLabel("Email").fill(NEW_USER.email);
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("Wrong email or password.");
  await page.getByLabel("Password").fill(NEW_USER.first);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByTestId("account-role")).toHaveText("reviewer");
  // A reviewer cannot share: no share links section, and no Admin link.
  await expect(page.getByRole("heading", { name: "Your share links" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);

  // An API key, shown once, works as the reviewer, and stops working when revoked.
  await page.getByLabel("Key name").fill("my harness");
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!;
  expect(key).toMatch(/^bl_[A-Za-z0-9]{64}$/);
  const script = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(key) });
  expect(await (await script.get("/api/v1/me")).json()).toMatchObject({ email: NEW_USER.email, role: "reviewer", via: "api_key" });
  expect((await script.post("/api/v1/experiments", { data: {} })).status()).toBe(403);
  await page
    .getByRole("row", { name: /my harness/ })
    .getByRole("button", { name: "Revoke" })
    .click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
  // Done when it says so (while the dialog is open the rows behind it are hidden, not gone).
  await expect(page.getByTestId("toast").filter({ hasText: 'Key "my harness" revoked' })).toBeVisible();
  await expect(page.getByRole("row", { name: /my harness/ })).toHaveCount(0);
  expect((await script.get("/api/v1/me")).status()).toBe(401);
  await script.dispose();

  await page.getByLabel("Current password").fill(NEW_USER.first);
  await page.getByLabel("New password").fill(NEW_USER.second);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toContainText("your other sessions were signed out");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.getByLabel("Email").fill(NEW_USER.email);
  await page.getByLabel("Password").fill(NEW_USER.second);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(NEW_USER.email);
  await page.screenshot({ path: "test-results/signed-in.png", fullPage: true });

  await context.close();
  await adminContext.close();
});

test("the server refuses what the forms would: a short password or an unknown role, naming the field, writing nothing", async () => {
  const admin = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(accounts().users.admin.apiKey) });
  const before = ((await (await admin.get("/api/v1/users")).json()) as { users: unknown[] }).users.length;
  for (const [body, field] of [
    [{ email: "x@e2e.test", password: "short", role: "viewer" }, "password"],
    [{ email: "x@e2e.test", password: PASSWORD, role: "root" }, "role"],
    [{ email: "nope", password: PASSWORD, role: "viewer" }, "email"],
    [{ email: accounts().users.viewer.email, password: PASSWORD, role: "viewer" }, "email"],
  ] as const) {
    const response = await admin.post("/api/v1/users", { data: body });
    expect([400, 409]).toContain(response.status());
    expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
  }
  expect(((await (await admin.get("/api/v1/users")).json()) as { users: unknown[] }).users.length).toBe(before);
  const lastAdmin = await admin.patch(`/api/v1/users/${accounts().users.admin.id}`, { data: { role: "viewer" } });
  expect(lastAdmin.status()).toBe(409);
  await admin.dispose();
});

test("sign-in is rate-limited per address and per account; share-token guessing per address", async () => {
  const signIn = (client: string, email: string, password: string) =>
    request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL, "x-forwarded-for": client } }).then(async (context) => {
      const status = (await context.post("/api/auth/sign-in/email", { data: { email, password } })).status();
      await context.dispose();
      return status;
    });
  // One address: 10 attempts a minute.
  const fromOne: number[] = [];
  for (let i = 0; i < 11; i++) fromOne.push(await signIn("10.9.1.1", `nobody${i}@e2e.test`, "wrong password 123"));
  expect(fromOne).toEqual([...Array(10).fill(401), 429]);
  // One account from ten addresses: 10 failures in a row, then even the right password waits.
  const toOne: number[] = [];
  for (let i = 0; i < 10; i++) toOne.push(await signIn(`10.9.2.${i + 1}`, "lockout@e2e.test", "wrong password 123"));
  toOne.push(await signIn("10.9.2.200", "lockout@e2e.test", PASSWORD));
  expect(toOne).toEqual([...Array(10).fill(401), 429]);

  const guesser = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { "x-forwarded-for": "10.9.3.1" } });
  const guesses: number[] = [];
  for (let i = 0; i < 11; i++) guesses.push((await guesser.get(`/api/v1/shared/${"A".repeat(42)}${"AEIMQUYcgkosw048"[i]}`)).status());
  expect(guesses).toEqual([...Array(10).fill(404), 429]);
  await guesser.dispose();
});
