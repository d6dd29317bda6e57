import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { drawCharts, seriousViolations, timeProblems } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { at, workedExample } from "../lib/testing/evaluation-example";

// An evaluation end to end in Chromium: an editor creates it in the form (the effect policy in the
// editor), its runs arrive through `npm run ingest` (a JSONL file), and the page shows the worked example's
// figures (docs/evaluations.md) as n/N and the unresolved run's reason, and a frozen share link shows them; the new pages pass axe.
test.describe.configure({ mode: "serial" });
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

test("an evaluation created in the form shows the worked example's figures and the unresolved run's reason; its pages pass axe", async ({
  page,
}) => {
  // Seven pages with axe, on a machine others share: axe alone can take several seconds a page.
  test.setTimeout(300_000);
  await page.goto("/evaluations/new");
  expect(await seriousViolations(page)).toEqual([]);

  // A policy row without a tool name is refused in the form's words, and nothing is sent.
  await page.getByRole("button", { name: "Add a tool" }).click();
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.locator("#name-error")).toHaveText("Name must not be empty");
  await page.getByLabel("Name", { exact: true }).fill("worked example (e2e)");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.locator("#effectPolicy-error")).toHaveText(
    "Effect policy: row 1 has no tool name; enter a tool's name or a pattern with *, or remove the row",
  );

  await page.getByLabel("Harness (optional)").fill("inspect");
  await page.getByLabel("Benchmark (optional)").fill("bank-bench");
  await page.getByLabel("Tool name or pattern, row 1").fill("bank.transfer");
  await page.getByLabel("Class, row 1").selectOption("async_handle");
  await page.getByRole("button", { name: "Add a tool" }).click();
  await page.getByLabel("Tool name or pattern, row 2").fill("bank.read");
  await page.getByLabel("Class, row 2").selectOption("read_only");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("evaluation-name")).toHaveText("worked example (e2e)");
  await expect(page.getByTestId("policy-declared")).toContainText("bank.transfer");

  // The runs through the CLI, then the late evidence for r1's transfer (it ended after r1 was scored).
  const apiKey = accounts().users.editor.apiKey;
  mkdirSync("test-results", { recursive: true });
  const file = "test-results/evaluation-worked-example.jsonl";
  writeFileSync(
    file,
    workedExample()
      .map((run) => JSON.stringify(run))
      .join("\n") + "\n",
  );
  const ingested = await promisify(execFile)("npm", ["run", "-s", "ingest", "--", "--evaluation", id, file], {
    env: { ...process.env, BOUNDARY_LAB_API_KEY: apiKey, BOUNDARY_LAB_URL: BASE_URL },
  });
  expect(ingested.stdout.trim().split("\n")).toEqual(["1\tr1\tcreated", "2\tr2\tcreated", "3\tr3\tcreated"]);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey });
  await client.appendResolution(id, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812", verifiedBy: "reconciler" });

  await page.reload();
  await expect(page.getByTestId("stat-reported")).toContainText("3/3 successes of all scored runs, as recorded");
  await expect(page.getByTestId("stat-final")).toContainText("2/2 successes of final runs");
  await expect(page.getByTestId("stat-unresolved")).toContainText("1/3 runs unresolved, of all scored runs");
  await expect(page.getByTestId("stat-unresolved")).toContainText("resolved, but after the run was scored: 1");
  await expect(page.getByTestId("stat-bounds")).toContainText("2/3 to 3/3 of all scored runs");
  await expect(page.getByTestId("stat-disagreements")).toContainText("1/1 runs with a terminal label");
  await expect(page.getByTestId("stat-units")).toContainText("1/3 units of run rows");
  await expect(page.getByTestId("stat-exposures")).toContainText("2/3 runs that received another run's state");
  // What the finals and the units rest on: r2's transfer by its evidence, r3 with nothing to wait for.
  await expect(page.getByTestId("final-basis")).toContainText("2 final: 1 by recorded evidence, 1 with no effect to wait for.");
  await expect(page.getByTestId("final-basis")).toContainText("1 analysis unit of 3 runs, from the touches and resets recorded for them.");
  await page.getByTestId("final-basis").screenshot({ path: "test-results/evaluation-final-basis.png" });
  await expect(page.getByTestId("unresolved-by-reason")).toContainText("resolved_after_scoring");
  await expect(page.getByTestId("unresolved-by-tool")).toContainText("bank.transfer");
  await expect(page.getByTestId("largest-units")).toContainText("service:banking.balance");
  await expect(page.getByTestId("tools-seen")).toContainText("async_handle");
  await expect(page.getByRole("img", { name: /^Reported against final-only/ })).toHaveAttribute(
    "aria-label",
    /Reported \(every run as the harness recorded it\): 3\/3 \(95% Wilson 43\.9%–100\.0%\); final only: 2\/2 \(95% Wilson 34\.2%–100\.0%\); bounds: 2\/3 to 3\/3/,
  );
  await drawCharts(page);
  // Each bar carries its Wilson whisker; the bounds of the true rate are their own labelled band, not a whisker.
  const ratesChart = page.locator("figure.chart").filter({ has: page.getByRole("img", { name: /^Reported against final-only/ }) });
  await expect(ratesChart.locator(".recharts-errorBar")).toHaveCount(2);
  await expect(ratesChart.locator(".recharts-reference-area")).toHaveCount(1);
  await expect(ratesChart.locator("svg text").filter({ hasText: "True rate over all runs: 67%–100% (bounds)" })).toBeVisible();
  await ratesChart.screenshot({ path: "test-results/evaluation-rates-chart.png" });
  expect(await seriousViolations(page)).toEqual([]);
  expect(await timeProblems(page)).toEqual([]);

  // The unresolved run, from the list filtered by finality.
  await page.goto(`/evaluations/${id}/runs?finality=unresolved`);
  await expect(page.getByTestId("evaluation-run-link")).toHaveCount(1);
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId("evaluation-run-link").click();
  await expect(page).toHaveURL(new RegExp(`/evaluations/${id}/runs/r1$`));
  await expect(page.getByTestId("unresolved-reason")).toContainText("resolved_after_scoring: resolved, but after the run was scored");
  await expect(page.getByTestId("unresolved-class")).toHaveText(
    "bank.transfer is asynchronous: acknowledged before it is applied, so only evidence checked by its handle ends it.",
  );
  await expect(page.getByTestId("label-explanation")).toContainText(
    "effect e1 (bank.transfer) was open at scoring — resolved, but after the run was scored",
  );
  await expect(page.getByTestId("run-effects")).toContainText("ledger entry 8812");
  await expect(page.getByTestId("run-effects")).toContainText("ended after scoring");
  expect(await seriousViolations(page)).toEqual([]);
  expect(await timeProblems(page)).toEqual([]);
  // A final run says what it rests on: r2's transfer, by the evidence its record holds (no verifier named).
  await page.goto(`/evaluations/${id}/runs/r2`);
  await expect(page.getByTestId("finality-basis")).toContainText("by recorded evidence, from an unnamed source");

  // A frozen share link: the same figures for a reader without an account.
  const shared = await page.request.post("/api/v1/share-links", {
    data: { resourceType: "evaluation", resourceId: id },
    headers: { origin: BASE_URL },
  });
  expect(shared.status(), await shared.text()).toBe(201);
  const anonymous = await page.context().browser()!.newContext();
  const reader = await anonymous.newPage();
  await reader.goto(((await shared.json()) as { url: string }).url);
  await expect(reader.getByTestId("share-banner")).toContainText("Read-only shared evaluation “worked example (e2e)”");
  await expect(reader.getByTestId("stat-final")).toContainText("2/2 successes of final runs");
  await expect(reader.getByTestId("unresolved-by-reason")).toContainText("resolved_after_scoring");
  await anonymous.close();

  await page.goto("/evaluations?name=worked+example");
  await expect(page.getByTestId("evaluations")).toContainText("3/3");
  await expect(page.getByTestId("evaluations")).toContainText("2/2");
  expect(await seriousViolations(page)).toEqual([]);
});

test("a taken name is refused on the name field; a policy version saved meanwhile is shown beside the form's rows, to save over or load", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "conflicts (e2e)", effectPolicy: { tools: { "bank.read": "read_only" } } });
  await page.goto("/evaluations/new");
  await page.getByLabel("Name", { exact: true }).fill("conflicts (e2e)");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.locator("#name-error")).toHaveText(
    `Name: an evaluation named "conflicts (e2e)" already exists (${id}); choose another name`,
  );
  await expect(page).toHaveURL(/\/evaluations\/new$/);

  // The form opened at version 1; version 2 is saved by someone else before it is sent.
  await page.goto(`/evaluations/${id}`);
  // The editor (its module and schemas) comes when opened, not with the page.
  await expect(page.getByTestId("open-policy-form")).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByRole("button", { name: "Save as a new version" })).toHaveCount(0);
  await page.getByTestId("open-policy-form").click();
  await page.getByRole("button", { name: "Add a tool" }).click();
  await page.getByLabel("Tool name or pattern, row 2").fill("bank.transfer");
  await page.getByLabel("Class, row 2").selectOption("external");
  await client.setEffectPolicy(id, { tools: { "bank.*": "async_handle" } }, 1);
  await page.getByRole("button", { name: "Save as a new version" }).click();
  const conflict = page.getByTestId("policy-conflict");
  await expect(conflict).toContainText("Not saved: the policy changed to version 2 while you edited");
  await expect(conflict).toContainText("the effect policy is at version 2 now, not 1; nothing was changed.");
  await expect(page.getByTestId("policy-conflict-current")).toHaveText("bank.* → async_handle");
  await expect(page.getByTestId("policy-conflict-yours")).toHaveText("bank.read → read_only; bank.transfer → external");
  expect(await seriousViolations(page)).toEqual([]);
  await conflict.getByRole("button", { name: "Save mine over version 2" }).click();
  await expect(page.getByTestId("policy-saved")).toContainText("Saved as version 3");
  await expect(page.getByTestId("policy-declared")).toContainText("bank.transfer");

  // Version 4 saved meanwhile again: loading it puts its rows in the form and the form's base at 4.
  await client.setEffectPolicy(id, { tools: { "bank.*": "read_only" } }, 3);
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(conflict).toContainText("the policy changed to version 4");
  await conflict.getByRole("button", { name: "Load version 4" }).click();
  await expect(conflict).toHaveCount(0);
  await expect(page.getByLabel("Tool name or pattern, row 1")).toHaveValue("bank.*");
  await expect(page.getByLabel("Tool name or pattern, row 2")).toHaveCount(0);
  await expect(page.getByText("Edited from version 4.")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Effect policy, version 4" })).toBeVisible();
});

test("a run's page says which class holds its label open, and a log without times reads as such, not 1970", async ({ page }) => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "external tools (e2e)", effectPolicy: { tools: { "update_*": "external" } } });
  // As AgentDojo's importer stores a log with no time: the run starts at the epoch and is scored `duration` later.
  const epoch = (ms: number) => new Date(ms).toISOString();
  await client.ingestRuns(id, [
    {
      externalId: "no-times",
      taskId: "banking/user_task_2",
      startedAt: epoch(0),
      scoredAt: epoch(4188),
      endpointLabel: "success",
      effects: [{ effectId: "c1", tool: "update_password", requestedAt: epoch(1200), statusAtScoring: "completed" }],
    },
  ]);
  await page.goto(`/evaluations/${id}/runs/no-times`);
  await expect(page.getByTestId("unresolved-reason")).toContainText("never_resolved: the harness said it ended; no system evidence came");
  await expect(page.getByTestId("unresolved-class")).toHaveText(
    "update_password is external: it acts outside what the run's record can confirm, so only resolution evidence recorded for it ends it (a status the harness reported is not enough).",
  );
  const effect = page.getByTestId("run-effects").getByRole("row").filter({ hasText: "update_password" });
  await expect(effect.getByTestId("effect-class")).toHaveText("external");
  await expect(effect).toContainText("+1.20 s to still open: the harness reported completed, but an external tool needs recorded evidence");
  await expect(page.getByTestId("run-started")).toHaveText(
    "not recorded (the log holds no time: the times below count from the run's start)",
  );
  await expect(page.getByText("Jan 1, 1970")).toHaveCount(0);
  await expect(page.getByText("1970-01-01")).toHaveCount(0);
  await expect(page.getByText("+4.19 s").first()).toBeVisible();
  await expect(page.getByText(".000 ms")).toHaveCount(0);
  await expect(page.getByRole("table", { name: /^Timeline/ })).toHaveAccessibleName("Timeline: time since this run's start");
  expect(await seriousViolations(page)).toEqual([]);
});

test("an editor records an effect's resolution from the run page, and is warned before classing a tool with recorded effects read-only", async ({
  page,
}) => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({
    name: "resolution form (e2e)",
    effectPolicy: { tools: { "bank.transfer": "async_handle" } },
  });
  await client.ingestRuns(id, [
    {
      externalId: "pending",
      taskId: "t",
      startedAt: at(0),
      scoredAt: at(2),
      endpointLabel: "success",
      effects: [{ effectId: "tx", tool: "bank.transfer", handle: "op-7", requestedAt: at(1), statusAtScoring: "pending" }],
    },
  ]);
  await page.goto(`/evaluations/${id}/runs/pending`);
  await expect(page.getByTestId("unresolved-reason")).toContainText("pending_at_scoring");
  const form = page.getByTestId("resolution-form");
  // No time is assumed: the form opens without one, and a resolution sent without it is refused naming the field.
  await expect(form.getByLabel("When it happened")).toHaveValue("");
  await form.getByRole("button", { name: "Record resolution" }).click();
  await expect(form.locator("#resolution-at-error")).toContainText("When it happened");
  // Every bad field named beside itself, nothing sent.
  await form.getByLabel("When it happened").fill("yesterday");
  await form.getByRole("button", { name: "Record resolution" }).click();
  await expect(form.locator("#resolution-evidence-error")).toContainText("Evidence must not be empty");
  await expect(form.locator("#resolution-at-error")).toContainText("When it happened");
  await form.getByLabel("When it happened").fill(at(9));
  await form.getByLabel("Evidence").fill("ledger entry 991");
  await form.getByLabel("Verified by (optional)").fill("reconciler");
  await form.getByRole("button", { name: "Record resolution" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Resolution of tx recorded" })).toBeVisible();
  await expect(page.getByTestId("unresolved-reason")).toContainText("resolved_after_scoring");
  await expect(page.getByTestId("run-effects")).toContainText("ledger entry 991, verified by reconciler (posted later)");

  await page.goto(`/evaluations/${id}`);
  await page.getByTestId("open-policy-form").click();
  await page.getByLabel("Class, row 1").selectOption("read_only");
  await expect(page.getByTestId("policy-read-only-writes")).toHaveText(
    "bank.transfer has 1 recorded effect that shows a write (a surface written, a handle to follow, or pending at scoring): classed read-only, they never hold a label open and the trace library calls its calls read-only. Keep read-only only if the tool changes nothing.",
  );
  await page.getByLabel("Class, row 1").selectOption("external");
  await expect(page.getByTestId("policy-read-only-writes")).toHaveCount(0);
});

test("an evaluation without runs says so, not that every label is final", async ({ page }) => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "empty (e2e)" });
  await page.goto(`/evaluations/${id}`);
  await expect(page.getByTestId("stat-unresolved")).toContainText("No scored run yet: nothing to be final or unresolved.");
  await expect(page.getByTestId("stat-unresolved")).not.toContainText("is final");
});

test("a long transcript is paged and a long output collapses, opening on request", async ({ page }) => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const { id } = await client.createEvaluation({ name: "long transcript (e2e)" });
  const messages = Array.from({ length: 250 }, (_, i) =>
    i === 1
      ? { role: "tool" as const, content: `page ${"x".repeat(4_991)} end`, toolCallId: "c0" }
      : { role: "assistant" as const, content: `message ${i + 1}` },
  );
  await client.ingestRuns(id, [{ externalId: "long", taskId: "t", startedAt: at(0), scoredAt: at(1), endpointLabel: "success", messages }]);
  await page.goto(`/evaluations/${id}/runs/long`);
  const transcript = page.getByTestId("transcript");
  await expect(transcript).toContainText("Messages 1–200 of 250");
  const long = transcript.getByTestId("transcript-message").nth(1);
  await expect(long.getByText("… show all 5,000 characters")).toBeVisible();
  await expect(long.getByText(/ end$/)).toBeHidden();
  await long.getByText("… show all 5,000 characters").click();
  await expect(long.getByText(/ end$/)).toBeVisible();
  await transcript.getByRole("link", { name: "Later messages (50 more)" }).click();
  await expect(page.getByTestId("transcript")).toContainText("Messages 201–250 of 250");
  await expect(page.getByTestId("transcript-message").first()).toContainText("message 201");
  await expect(page.getByTestId("transcript").getByRole("link", { name: "Earlier messages" })).toBeVisible();
});

test("the policy editor flags every bad row at once, each with its reason, and a fixed row stops being flagged", async ({ page }) => {
  await page.goto("/evaluations/new");
  await page.getByLabel("Name", { exact: true }).fill(`rows flagged (e2e) ${Date.now()}`);
  for (const tool of ["", "db.update", "mail.send", "db.update"]) {
    await page.getByRole("button", { name: "Add a tool" }).click();
    const row = await page.getByTestId("policy-row").count();
    await page.getByLabel(`Tool name or pattern, row ${row}`).fill(tool);
  }
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.locator("#effectPolicy-error")).toHaveText("Effect policy: 2 rows need attention (rows 1, 4); each says why below it");
  await expect(page.getByTestId("policy-row-error")).toHaveText([
    "Row 1 has no tool name: enter a tool's name or a pattern with *, or remove the row.",
    "Row 4 repeats “db.update” from row 2: keep one.",
  ]);
  await expect(page.getByLabel("Tool name or pattern, row 1")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Tool name or pattern, row 1")).toHaveAccessibleDescription(/Row 1 has no tool name/);
  await expect(page.getByLabel("Tool name or pattern, row 3")).not.toHaveAttribute("aria-invalid", "true");
  expect(await seriousViolations(page)).toEqual([]);

  // Fixing a row clears its flag at once; the last fixed, the evaluation is created.
  await page.getByLabel("Tool name or pattern, row 1").fill("bank.transfer");
  await expect(page.getByTestId("policy-row-error")).toHaveText(["Row 4 repeats “db.update” from row 2: keep one."]);
  await page.getByRole("button", { name: "Remove row 4 (db.update)" }).click();
  await expect(page.getByTestId("policy-row-error")).toHaveCount(0);
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("policy-declared")).toContainText("bank.transfer");
});
