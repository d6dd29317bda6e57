import { accounts } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";

// Share links end to end in Chromium: an admin shares, a private window (no account) reads exactly
// that one result, frozen and hashed, and nothing else; revoking and the kill switch close it at once.
test.describe.configure({ mode: "serial" });

test("an admin shares an experiment; a private window reads it read-only and nothing else; revoking it shows 'link revoked'", async ({
  browser,
}) => {
  test.setTimeout(90_000); // a dozen page loads in two browser contexts: more than the default on a loaded machine
  const adminContext = await browser.newContext({ storageState: await storageStateFor("admin") });
  const admin = await adminContext.newPage();
  await admin.goto(`/experiments/${accounts().experimentId}`);
  await admin.getByRole("button", { name: "Share read-only link…" }).click();
  await expect(admin.getByLabel("Expires")).toHaveValue("14");
  await expect(admin.getByLabel(/A frozen snapshot/)).toBeChecked();
  await admin.getByRole("button", { name: "Create link" }).click();
  const url = await admin.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${BASE_URL}/s/[A-Za-z0-9_-]{43}$`));
  await admin.screenshot({ path: "test-results/share-created.png", fullPage: true });

  // A private window: no cookies, no account.
  const privateContext = await browser.newContext();
  const reviewer = await privateContext.newPage();
  const opened = await reviewer.goto(url);
  expect(opened?.status()).toBe(200);
  expect(opened?.headers()["referrer-policy"]).toBe("no-referrer");
  expect(opened?.headers()["x-robots-tag"]).toContain("noindex");
  expect(opened?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  await expect(reviewer.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
  const banner = reviewer.getByTestId("share-banner");
  await expect(banner).toContainText("Frozen snapshot taken");
  await expect(reviewer.getByTestId("share-hash")).toHaveText(/^[0-9a-f]{64}$/);
  await expect(reviewer.getByRole("table", { name: "Outcome finality by policy" })).toBeVisible();
  await expect(reviewer.getByRole("table", { name: "Cross-unit separation by condition" })).toBeVisible();
  // Read-only: nothing to act with, and no account to act as.
  await expect(reviewer.getByRole("button")).toHaveCount(0);
  await expect(reviewer.getByTestId("signed-in-as")).toHaveCount(0);
  await reviewer.screenshot({ path: "test-results/shared-experiment.png", fullPage: true });

  // Nothing else is reachable from the private window.
  for (const path of ["/", `/experiments/${accounts().experimentId}`, "/account", "/admin"]) {
    await reviewer.goto(path);
    await expect(reviewer, path).toHaveURL(/\/login\?next=/);
  }
  for (const path of ["/api/v1/me", `/api/v1/experiments/${accounts().experimentId}/summary`, "/api/v1/share-links"]) {
    expect((await reviewer.request.get(path)).status(), path).toBe(401);
  }

  // The sender sees the use in their list, and revokes the link.
  await admin.goto("/account");
  const row = admin.getByTestId("share-links").getByRole("row").filter({ hasText: "experiment" }).first();
  await expect(row).toContainText("active");
  await expect(row.getByRole("cell").nth(3)).toHaveText("1"); // mode, status, expires, uses
  await row.getByRole("button", { name: "Revoke" }).click();
  await admin.getByRole("alertdialog").getByRole("button", { name: "Revoke link" }).click();
  await expect(admin.getByTestId("share-links").getByRole("row").filter({ hasText: "revoked" }).first()).toBeVisible();
  await admin.screenshot({ path: "test-results/account.png", fullPage: true });

  await reviewer.goto(url);
  await expect(reviewer.getByRole("heading", { name: "Link revoked" })).toBeVisible();
  await expect(reviewer.getByTestId("share-refusal")).toHaveAttribute("data-code", "link_revoked");
  await expect(reviewer.getByRole("table")).toHaveCount(0);
  await reviewer.screenshot({ path: "test-results/shared-revoked.png", fullPage: true });

  await privateContext.close();
  await adminContext.close();
});

test("the admin kill switch closes every share link at once, and reopening restores them", async ({ browser }) => {
  const editor = await apiAs("editor");
  const created = await editor.post("/api/v1/share-links", {
    data: { resourceType: "run", resourceId: accounts().runId, mode: "live", expiresInDays: null },
  });
  expect(created.status()).toBe(201);
  const { url, link } = (await created.json()) as { url: string; link: { expiresAt: string | null } };
  expect(link.expiresAt).toBeNull();

  const anonymous = await browser.newContext();
  const reviewer = await anonymous.newPage();
  await reviewer.goto(url);
  await expect(reviewer.getByTestId("share-banner")).toContainText("Live view");
  await expect(reviewer.getByRole("heading", { name: /^Run / })).toBeVisible();

  const adminContext = await browser.newContext({ storageState: await storageStateFor("admin") });
  const admin = await adminContext.newPage();
  await admin.goto("/admin");
  await admin.getByRole("button", { name: /Disable every share link/ }).click();
  await admin.getByRole("alertdialog").getByRole("button", { name: "Disable every link" }).click();
  await expect(admin.getByTestId("kill-switch-state")).toContainText("Every share link is disabled");
  await admin.screenshot({ path: "test-results/admin.png", fullPage: true });

  await reviewer.goto(url);
  await expect(reviewer.getByRole("heading", { name: "Sharing disabled" })).toBeVisible();
  expect((await reviewer.request.get(url.replace("/s/", "/api/v1/shared/"))).status()).toBe(403);

  await admin.getByRole("button", { name: "Enable share links again" }).click();
  await expect(admin.getByTestId("kill-switch-state")).toContainText("Share links are enabled");
  await reviewer.goto(url);
  await expect(reviewer.getByTestId("share-banner")).toBeVisible();

  await anonymous.close();
  await adminContext.close();
  await editor.dispose();
});

test("a frozen link keeps exactly what the sender saw while the experiment runs on; a live link follows it", async ({ request }) => {
  test.setTimeout(90_000);
  const editor = await apiAs("editor");
  const { id } = (await (
    await editor.post("/api/v1/experiments", { data: { delaysMs: [0, 250], schedules: 3, repetitions: 5 } })
  ).json()) as { id: string };
  await expect
    .poll(async () => ((await (await editor.get(`/api/v1/experiments/${id}`)).json()) as { progress: { done: number } }).progress.done, {
      timeout: 30_000,
      intervals: [20],
    })
    .toBeGreaterThan(0);
  const share = async (mode: string) => {
    const response = await editor.post("/api/v1/share-links", { data: { resourceType: "experiment", resourceId: id, mode } });
    expect(response.status()).toBe(201);
    return (await response.json()) as { url: string; link: { contentHash: string | null } };
  };
  const frozen = await share("frozen");
  const live = await share("live");
  const open = async (url: string) =>
    (await (await request.get(url.replace("/s/", "/api/v1/shared/"))).json()) as {
      contentHash: string;
      content: { experiment: { state: string }; summary: { classifications: Record<string, number> } };
    };
  const frozenAtStart = await open(frozen.url);
  expect(frozenAtStart.contentHash).toBe(frozen.link.contentHash);
  expect(frozenAtStart.content.experiment.state).not.toBe("completed");

  await expect
    .poll(async () => ((await (await editor.get(`/api/v1/experiments/${id}`)).json()) as { state: string }).state, { timeout: 60_000 })
    .toBe("completed");
  const frozenAfter = await open(frozen.url);
  expect(frozenAfter).toEqual(frozenAtStart);
  const liveAfter = await open(live.url);
  expect(liveAfter.content.experiment.state).toBe("completed");
  expect(liveAfter.contentHash).not.toBe(frozenAfter.contentHash);
  expect(Object.values(liveAfter.content.summary.classifications).reduce((a, b) => a + b, 0)).toBe(2 * 3 * 5 * 18);
  await editor.dispose();
});
