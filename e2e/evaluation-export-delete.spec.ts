import { readFileSync } from "node:fs";
import { accounts } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { at } from "../lib/testing/evaluation-example";

// Export and delete (docs/evaluations.md): an evaluation can be exported and, after a confirmation that names its run count,
// deleted from its page; the deletion is in the admins' audit log, and its share links answer 410.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

test("an editor exports an evaluation's runs, deletes it after a confirmation naming its runs; the admin reads it in the audit log; its link is gone", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "mistaken import (e2e)" });
  await client.ingestRuns(id, [
    { externalId: "m1", taskId: "t1", startedAt: at(0), scoredAt: at(1), endpointLabel: "success" },
    { externalId: "m2", taskId: "t1", startedAt: at(2), scoredAt: at(3), endpointLabel: "failure" },
    { externalId: "m3", taskId: "t2", startedAt: at(4), scoredAt: at(5), endpointLabel: "success" },
  ]);
  const editorApi = await apiAs("editor");
  const shared = await editorApi.post("/api/v1/share-links", { data: { resourceType: "evaluation", resourceId: id, mode: "frozen" } });
  expect(shared.status()).toBe(201);
  const { url } = (await shared.json()) as { url: string };
  await editorApi.dispose();

  await page.goto(`/evaluations/${id}`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
  expect(download.suggestedFilename()).toBe(`evaluation-${id}.csv`);
  const csv = readFileSync(await download.path(), "utf8")
    .replace(/^\uFEFF/, "")
    .split("\r\n");
  expect(csv[0]).toMatch(/^externalId,taskId,groupId,attempt,runClass,/);
  expect(csv.slice(1, 4).map((line) => line.split(",")[0])).toEqual(["m1", "m2", "m3"]);

  // The dialog names the run count; keeping the evaluation closes it with nothing deleted.
  await page.getByTestId("delete-evaluation").click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog.getByRole("heading")).toHaveText("Delete mistaken import (e2e)?");
  await expect(dialog.getByTestId("delete-run-count")).toHaveText("3 runs");
  await dialog.getByRole("button", { name: "Keep it" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("evaluation-name")).toHaveText("mistaken import (e2e)");

  await page.getByTestId("delete-evaluation").click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete 3 runs" }).click();
  await expect(page).toHaveURL(/\/evaluations$/);
  await expect(page.getByTestId("toast").filter({ hasText: "Deleted mistaken import (e2e)" })).toContainText("3 runs went with it.");
  expect((await page.request.get(`/api/v1/evaluations/${id}`)).status()).toBe(404);
  expect((await page.goto(`/evaluations/${id}`))!.status()).toBe(404);

  const admin = await browser.newContext({ storageState: await storageStateFor("admin") });
  const adminPage = await admin.newPage();
  await adminPage.goto("/admin#audit-log");
  const entry = adminPage.getByTestId("audit-log").getByRole("row").filter({ hasText: id });
  await expect(entry).toContainText("evaluation.delete");
  await expect(entry).toContainText(accounts().users.editor.email);
  await expect(entry).toContainText("mistaken import (e2e)");
  await expect(entry).toContainText("3 runs deleted");
  await admin.close();

  const anonymous = await browser.newContext();
  const reviewer = await anonymous.newPage();
  await reviewer.goto(url);
  await expect(reviewer.getByRole("heading", { name: "Result deleted" })).toBeVisible();
  await expect(reviewer.getByTestId("share-refusal")).toHaveAttribute("data-code", "resource_gone");
  expect((await reviewer.request.get(url.replace("/s/", "/api/v1/shared/"))).status()).toBe(410);
  await anonymous.close();
});
