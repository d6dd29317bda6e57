import { accounts } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { at } from "../lib/testing/evaluation-example";

// The walkthrough's other leftovers in Chromium: counts that agree on one screen, an effective N
// within its units, a replay run scored before its endpoint saying why, the completion argument's
// denominator, the read-only warning's rule, open live runs on the evaluation page, one time
// formatter, the revoked link's time, and a header that does not stay pinned on a phone.

const editorClient = () => evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
/** "6 Dec 2026, 22:52": the one shape every time is shown in. */
const TIME_SHAPE = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d{2}:\d{2}/;

test.describe("in New York time", () => {
  test.use({ timezoneId: "America/New_York", storageState: async ({}, use) => use(await storageStateFor("viewer")) });

  test("a time reads alike on a list and on a page: the reader's local time, the UTC instant on hover", async ({ page }) => {
    const { id } = await editorClient().createEvaluation({ name: `times ${Date.now()}`, effectPolicy: { tools: {} } });
    const detail = await editorClient().getEvaluation(id);
    const created = new Date(detail.createdAt);
    const utc = `${created.toISOString().slice(0, 10)} ${created.toISOString().slice(11, 19)} UTC`;
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: "America/New_York",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(created);
    await page.goto("/evaluations");
    const onList = page.getByRole("row", { name: new RegExp(detail.name) }).locator("time");
    await expect(onList).toHaveAttribute("title", utc);
    await expect(onList).toHaveText(TIME_SHAPE);
    await expect(onList).toContainText(local);
    await expect(onList).not.toContainText("UTC");
    const listed = (await onList.innerText()).split(" (")[0];
    await page.goto(`/evaluations/${id}`);
    const onPage = page.locator("main header time").first();
    await expect(onPage).toHaveAttribute("title", utc);
    await expect(onPage).toHaveText(TIME_SHAPE);
    await expect(onPage).toContainText(local);
    // The same instant in the same words on both.
    expect((await onPage.innerText()).split(" (")[0]).toBe(listed);
  });

  test("a revoked link's page gives the revocation in the reader's time, never a raw ISO instant", async ({ browser }) => {
    const editor = await apiAs("editor");
    const created = await editor.post("/api/v1/share-links", { data: { resourceType: "experiment", resourceId: accounts().experimentId } });
    expect(created.status(), await created.text()).toBe(201);
    const { url, link } = (await created.json()) as { url: string; link: { id: string } };
    expect((await editor.post(`/api/v1/share-links/${link.id}/revoke`)).status()).toBe(200);
    const context = await browser.newContext({ timezoneId: "America/New_York" });
    const page = await context.newPage();
    await page.goto(new URL(url).pathname);
    const refusal = page.getByTestId("share-refusal");
    await expect(refusal).toContainText("This share link was revoked at");
    await expect(refusal.getByTestId("share-refusal-time")).toHaveText(TIME_SHAPE);
    await expect(refusal.getByTestId("share-refusal-time")).toHaveAttribute("title", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await expect(refusal).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    await context.close();
  });
});

test.describe("as an editor", () => {
  test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

  test("the statistics and the cards count stored rows alike, and the effective N never passes the units counted", async ({ page }) => {
    const client = editorClient();
    const { id } = await client.createEvaluation({ name: `units ${Date.now()}`, effectPolicy: { tools: {} } });
    const run = (externalId: string, second: number, label: "success" | "failure", extra: object = {}) => ({
      externalId,
      taskId: externalId,
      startedAt: at(second),
      scoredAt: at(second + 1),
      endpointLabel: label,
      ...extra,
    });
    // a1 writes db:x, a2 reads it later: one unit whose runs disagree. b1, b2 separate; n1 stored unscored.
    await client.ingestRuns(id, [
      run("a1", 0, "success", { touches: [{ surface: "db:x", op: "write", at: at(0) }] }),
      run("a2", 4, "failure", { touches: [{ surface: "db:x", op: "read", at: at(4) }] }),
      run("b1", 8, "success"),
      run("b2", 10, "success"),
      { externalId: "n1", taskId: "n1", startedAt: at(12), unscoredReason: "the harness scored nothing" },
    ]);
    await page.goto(`/evaluations/${id}`);
    await expect(page.getByText("5 run rows form 4 analysis units.").first()).toBeVisible();
    const units = page.getByTestId("statistics-units");
    await expect(units.locator("caption")).toContainText(
      "N = 4 rows counted under the rule, in 3 analysis units (the effective N is at most that); of 5 stored run rows, scored or not, in 4 analysis units; design effect 1.33",
    );
    // The ratio alone is 0.5 (4 rows, 3 successes, units (1,1), (1), (1)): a floor at 1 gave 4 "effective" rows of 3 units.
    await expect(
      units
        .getByRole("row", { name: /analysis units \(N \/ design effect\)/ })
        .getByRole("cell")
        .nth(2),
    ).toHaveText("3.00");
  });

  test("an open live run shows on its evaluation page, counted, with a link to the runs list", async ({ page }) => {
    const client = editorClient();
    const { id } = await client.createEvaluation({ name: `open live ${Date.now()}`, effectPolicy: { tools: {} } });
    await client.ingestRuns(id, [{ externalId: "done", taskId: "t", startedAt: at(0), scoredAt: at(1), endpointLabel: "success" }]);
    await page.goto(`/evaluations/${id}`);
    await expect(page.getByTestId("evaluation-open-live-runs")).toHaveCount(0);
    await client.openLiveRun(id, { externalId: "live-1", taskId: "t", startedAt: new Date().toISOString() });
    await page.reload();
    const note = page.getByTestId("evaluation-open-live-runs");
    await expect(note).toContainText("1 live run is open: in no figure on this page until scored.");
    await note.getByRole("link", { name: "List the open live run" }).click();
    await expect(page).toHaveURL(new RegExp(`/evaluations/${id}/runs$`));
    await expect(page.getByTestId("open-live-runs")).toContainText("live-1");
  });

  test("the read-only warning spares a tool whose effects show no write, and still names one whose effects do", async ({ page }) => {
    const client = editorClient();
    const { id } = await client.createEvaluation({
      name: `read-only rule ${Date.now()}`,
      effectPolicy: { tools: { read_file: "sync_confirmed", "bank.transfer": "async_handle" } },
    });
    // As an importer records every call: read_file's returned with no surface or handle; the transfer was pending with a handle.
    await client.ingestRuns(id, [
      {
        externalId: "r1",
        taskId: "t",
        startedAt: at(0),
        scoredAt: at(5),
        endpointLabel: "success",
        effects: [
          { effectId: "c0", tool: "read_file", requestedAt: at(1), acknowledgedAt: at(1), statusAtScoring: "completed" },
          { effectId: "c1", tool: "bank.transfer", handle: "op-9", requestedAt: at(2), statusAtScoring: "pending" },
        ],
      },
    ]);
    await page.goto(`/evaluations/${id}`);
    await page.getByTestId("open-policy-form").click();
    const rowOf = async (tool: string) => {
      for (let i = 1; i <= 2; i++) if ((await page.getByLabel(`Tool name or pattern, row ${i}`).inputValue()) === tool) return i;
      throw new Error(`no row for ${tool}`);
    };
    await page.getByLabel(`Class, row ${await rowOf("read_file")}`).selectOption("read_only");
    await expect(page.getByTestId("policy-read-only-writes")).toHaveCount(0);
    await page.getByLabel(`Class, row ${await rowOf("bank.transfer")}`).selectOption("read_only");
    await expect(page.getByTestId("policy-read-only-writes")).toHaveText(/^bank\.transfer has 1 recorded effect that shows a write/);
  });

  test("a completion argument's evaluation evidence counts final runs over the scored runs, as the evaluation page does", async ({
    page,
  }) => {
    const editor = await apiAs("editor");
    const client = editorClient();
    const { id: evaluationId } = await client.createEvaluation({ name: `denominator ${Date.now()}`, effectPolicy: { tools: {} } });
    await client.ingestRuns(evaluationId, [
      { externalId: "s1", taskId: "t", startedAt: at(0), scoredAt: at(1), endpointLabel: "success" },
      { externalId: "s2", taskId: "t", startedAt: at(2), scoredAt: at(3), endpointLabel: "failure" },
      { externalId: "n1", taskId: "t", startedAt: at(4), unscoredReason: "the harness scored nothing" },
    ]);
    const created = await editor.post("/api/v1/protocols", { data: { name: `Argued ${Date.now()}` } });
    const { id: protocolId } = (await created.json()) as { id: string };
    await page.goto(`/protocols/${protocolId}/completion-argument`);
    const form = page.getByTestId("argument-editor");
    await form.getByLabel("Answer to question 1", { exact: true }).fill("Task success per run.");
    await form.getByLabel("Question 1: source location", { exact: true }).fill("README §1");
    await form.getByLabel("Question 1: sources read on", { exact: true }).fill("2026-12-01");
    await form.getByTestId("editor-finality").getByRole("button", { name: "Add evidence" }).last().click();
    await form.getByLabel("Question 4 evidence, link 1: kind", { exact: true }).selectOption("evaluation");
    await form.getByLabel("Question 4 evidence, link 1: item", { exact: true }).selectOption(evaluationId);
    await form.getByLabel("Reason for this change", { exact: true }).fill("evidence");
    await form.getByRole("button", { name: "Save the argument" }).click();
    await expect(page.getByTestId("evidence-link").filter({ hasText: "denominator" }).first()).toContainText(
      "final 2/2 scored runs (3 stored), 3 analysis units",
    );
  });

  test("a replay run A scored before its own endpoint says why on its page", async ({ page }) => {
    const viewer = await apiAs("viewer");
    const answer = (await (
      await viewer.get(`/api/v1/experiments/${accounts().experimentId}/runs?condition=verified_reset&role=A&limit=5`)
    ).json()) as { runs: { id: string }[] };
    expect(answer.runs.length).toBeGreaterThan(0);
    await page.goto(`/runs/${answer.runs[0]!.id}`);
    // Under verified reset the pair reads A's endpoint only once A's writes are terminal: A is scored, on its terminal label, before.
    await expect(page.getByTestId("scored-before-endpoint")).toContainText(
      "before its endpoint, by design: run A's label is its terminal label, fixed the instant its last write became terminal, and under verified reset the pair reads A's endpoint only after waiting for A's writes to be terminal.",
    );
  });

  test("while an experiment runs, the 'Runs stored' card and the progress bar show one count", async ({ page }) => {
    test.setTimeout(90_000);
    const editor = await apiAs("editor");
    const { id } = (await (
      await editor.post("/api/v1/experiments", { data: { delaysMs: [250], schedules: 5, repetitions: 30, name: "one count" } })
    ).json()) as { id: string };
    await page.goto(`/experiments/${id}`);
    await expect(page.getByTestId("progress-state")).toHaveText(/queued|running/);
    const bar = page.getByTestId("experiment-progress");
    const card = page.getByTestId("stat-runs");
    let samples = 0;
    for (let i = 0; i < 20 && samples < 5; i++) {
      // Read both in one task of the page, so no poll lands between the two reads.
      const [done, total, cardText] = await page.evaluate(() => {
        const progress = document.querySelector<HTMLProgressElement>("[data-testid='experiment-progress']")!;
        return [progress.value, progress.max, document.querySelector("[data-testid='stat-runs']")!.textContent ?? ""];
      });
      expect(cardText).toContain(`${done}/${total}`);
      if (done > 0) samples++;
      await page.waitForTimeout(700);
    }
    expect(samples).toBeGreaterThan(0);
    await expect(bar).toBeVisible();
    await expect(card).toBeVisible();
    await page.getByRole("button", { name: "Cancel experiment" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Cancel experiment" }).click();
    // Its last units may finish while the cancel is on its way: either way it stops.
    await expect(page.getByTestId("progress-state")).toHaveText(/^(cancelled|completed)$/);
  });
});

test("on a 390 px phone the header scrolls away instead of staying pinned", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await storageStateFor("viewer") });
  const page = await context.newPage();
  await page.goto("/protocols");
  const header = page.locator("header").first();
  expect(await header.evaluate((h) => getComputedStyle(h).position)).toBe("static");
  await page.mouse.wheel(0, 1500);
  await expect.poll(async () => (await header.boundingBox())!.y + (await header.boundingBox())!.height).toBeLessThanOrEqual(0);
  await context.close();
  // From md up it stays pinned.
  const wide = await browser.newContext({ viewport: { width: 1280, height: 800 }, storageState: await storageStateFor("viewer") });
  const widePage = await wide.newPage();
  await widePage.goto("/protocols");
  expect(
    await widePage
      .locator("header")
      .first()
      .evaluate((h) => getComputedStyle(h).position),
  ).toBe("sticky");
  await wide.close();
});
