import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";

// A live run in Chromium (docs/recording.md, Live runs): while it is open its page shows its effects at their current
// status and follows new events by itself; once scored it is an ordinary audited run.
test.use({ storageState: async ({}, use) => use(await storageStateFor("viewer")) });

test("an open live run's page shows its effects at their current status, follows new events, and becomes the audited run once scored", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({
    name: `live run page ${Date.now()}`,
    effectPolicy: { tools: { "bank.send_money": "async_handle" } },
  });
  const now = Date.now();
  const iso = (ms: number) => new Date(now + ms).toISOString();
  await client.openLiveRun(id, { externalId: "live-1", taskId: "transfer", startedAt: iso(0) });
  await client.sendLiveEvents(id, "live-1", [
    {
      eventId: "1",
      type: "effect_requested",
      at: iso(100),
      effectId: "tx-1",
      tool: "bank.send_money",
      handle: "task-41",
      surface: "acct:alice",
    },
    { eventId: "2", type: "effect_status", at: iso(200), effectId: "tx-1", status: "pending" },
  ]);

  await page.goto(`/evaluations/${id}/runs`);
  await expect(page.getByTestId("open-live-runs")).toContainText("1 live run open: in no figure until scored");
  await page.getByTestId("open-live-runs").getByRole("link", { name: "live-1" }).click();
  await expect(page).toHaveURL(new RegExp(`/evaluations/${id}/runs/live-1$`));
  await expect(page.getByTestId("live-run-state")).toHaveText("live · open");
  const effects = page.getByTestId("live-effects");
  await expect(effects).toContainText("tx-1");
  await expect(effects).toContainText("pending");
  await expect(effects).toContainText("none yet");
  expect(await seriousViolations(page)).toEqual([]);

  // The page refreshes itself: the transfer's completion shows without a reload.
  await client.sendLiveEvents(id, "live-1", [
    { eventId: "3", type: "effect_status", at: iso(300), effectId: "tx-1", status: "completed", evidence: "ledger 7" },
  ]);
  await expect(effects).toContainText("completed at", { timeout: 15_000 });

  expect(await client.scoreLiveRun(id, "live-1", { endpointLabel: "success", at: iso(400) })).toEqual({ finality: "final" });
  await page.reload();
  await expect(page.getByTestId("run-finality")).toHaveText("final");
  await expect(page.getByTestId("run-effects")).toContainText("ledger 7");
});

test.describe("a recorder's tool-class suggestions", () => {
  test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

  test("are shown beside the policy and count only once an editor saves them into a version", async ({ page }) => {
    test.setTimeout(120_000);
    const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
    const { id } = await client.createEvaluation({
      name: `suggestions ${Date.now()}`,
      effectPolicy: { tools: { "bank.get_balance": "read_only" } },
    });
    await client.suggestToolClasses(id, {
      source: "mcp:bank",
      tools: [
        { tool: "bank.get_balance", suggestedClass: "read_only", reason: "readOnlyHint", annotations: { readOnlyHint: true } },
        { tool: "bank.send_money", suggestedClass: "async_handle", reason: "a call was answered with a task (its id the handle)" },
      ],
    });
    await page.goto(`/evaluations/${id}`);
    const table = page.getByTestId("tool-suggestions");
    await expect(table).toContainText("Suggested by recorders: 1 of 2 not in this version");
    await expect(table.getByRole("row", { name: /bank\.send_money/ })).toContainText("unclassified");
    await page.getByTestId("open-policy-form").click();
    await page.getByTestId("add-suggested-classes").click();
    await page.getByRole("button", { name: "Save as a new version" }).click();
    await expect(page.getByTestId("policy-saved")).toContainText("Saved as version 2");
    await expect(page.getByTestId("policy-version")).toHaveText("effect policy version 2");
    await expect(table).toContainText("Suggested by recorders: 0 of 2 not in this version");
    expect((await client.getEvaluation(id)).effectPolicy.tools).toEqual({
      "bank.get_balance": "read_only",
      "bank.send_money": "async_handle",
    });
  });
});
