import { expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { AGENTDOJO_RUNS } from "../lib/testing/importer-fixtures";

// An imported run's tool calls in the trace library: uploaded from the browser, listed beside the
// ground truth as an imported trace, its calls marked, and linked to the run that made them.
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

const EXTERNAL_ID = "gpt-4o-2024-05-13/banking/user_task_13/important_instructions/injection_task_7";

test("an imported run's call sequence is an imported trace with its writes marked and a link to the run", async ({ page, editorApi }) => {
  test.setTimeout(120_000);
  await page.goto("/evaluations/import");
  await page
    .getByTestId("import-files")
    .setInputFiles([`${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_13__important_instructions__injection_task_7.json`]);
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("import-report")).toContainText("0 failed");

  await page.goto("/traces?source=imported&suite=banking");
  const row = page.getByTestId("traces").getByRole("row").filter({ hasText: "banking/user_task_13" });
  await expect(row).toContainText("imported run");
  await expect(row).toContainText("update_password");
  expect(await seriousViolations(page)).toEqual([]);
  await row.getByTestId("trace-link").click();

  await expect(page.getByTestId("trace-source")).toContainText("imported runs");
  await expect(page.getByTestId("trace-write-count")).toContainText("2 of 3 calls change state");
  await expect(page.getByTestId("trace-calls").locator('tr[data-state-changing="true"]')).toHaveCount(2);
  await expect(page.getByTestId("trace-runs")).toContainText(EXTERNAL_ID);
  expect(await seriousViolations(page)).toEqual([]);
  const id = page.url().split("/").at(-1)!;

  // The API answers it too, with the source and the hash, and the run among its linked runs.
  const listed = await (await editorApi.get("/api/v1/traces?source=imported&task=banking/user_task_13")).json();
  const trace = listed.traces.find((t: { id: string }) => t.id === id);
  // Other specs import the same real log into evaluations of their own, whose runs link to this trace too.
  expect(trace.linkedRuns).toBeGreaterThanOrEqual(1);
  expect(trace).toMatchObject({
    source: "imported",
    stateChangingCount: 2,
    contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  const detail = await (await editorApi.get(`/api/v1/traces/${id}`)).json();
  expect(detail.linkedRuns.runs.map((r: { externalId: string }) => r.externalId)).toContain(EXTERNAL_ID);

  await page.getByTestId("trace-runs").getByRole("link", { name: EXTERNAL_ID }).first().click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}\/runs\//);
});

test("runs with AgentDojo's task ids are filed under their suite whatever the benchmark says, counted on the ground truth, and an unclassified tool is not called read-only", async ({
  page,
  editorApi,
}) => {
  test.setTimeout(120_000);
  const created = await editorApi.post("/api/v1/evaluations", {
    data: {
      name: "mixed suites (traces spec)",
      benchmark: "AgentDojo (mixed suites)",
      effectPolicy: { tools: { send_money: "sync_confirmed", get_balance: "read_only" } },
    },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const run = {
    externalId: "mixed-1",
    taskId: "workspace/user_task_30",
    startedAt: "2026-12-01T10:00:00.000Z",
    scoredAt: "2026-12-01T10:00:05.000Z",
    endpointLabel: "success",
    toolCalls: [
      { tool: "get_balance", arguments: { account: "mixed" } },
      { tool: "mystery_tool", arguments: { n: 1 } },
    ],
  };
  expect((await editorApi.post(`/api/v1/evaluations/${id}/runs`, { data: { runs: [run] } })).status()).toBe(200);

  // The worker's record_traces job files it under workspace, not under the benchmark's words.
  const row = page.getByTestId("traces").getByRole("row").filter({ hasText: "workspace/user_task_30" });
  await expect(async () => {
    await page.goto("/traces?source=imported&suite=workspace");
    await expect(row).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  // mystery_tool, which no policy classes, is a call that may change state (the audit holds its run open), not "none".
  await expect(row).toContainText("mystery_tool");
  await row.getByTestId("trace-link").click();
  await expect(page.getByTestId("trace-write-count")).toContainText("1 of 2 calls change state");
  await expect(page.getByTestId("trace-calls").locator('tr[data-state-changing="true"]')).toContainText("mystery_tool");

  // The ground-truth trace of workspace/user_task_30 counts the run.
  await page.goto("/traces?source=ground_truth&task=workspace/user_task_30");
  const groundTruth = page.getByTestId("traces").getByRole("row").filter({ hasText: "workspace/user_task_30" });
  await expect(groundTruth.getByRole("cell").last()).toHaveText("1");
  expect(await seriousViolations(page)).toEqual([]);
});
