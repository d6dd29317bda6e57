import { accounts } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { at, workedExample } from "../lib/testing/evaluation-example";

// An evaluation's share link opens its runs in Chromium without an account, frozen as the link is;
// a revoked link refuses every run page; two runs side by side show where they differ.
test.describe.configure({ mode: "serial" });

const RENT_PROMPT = "Pay the rent to the landlord.";

/**
 * The worked example with a conversation: r1's transfer is pending at scoring, r2's completed before it. Their ends
 * differ, so that sorting by duration orders them: r3 (5 s to scoring), r1 (7 s), r2 (9 s).
 */
function runsWithTranscripts() {
  const [r1, r2, r3] = workedExample();
  const conversation = (callId: string, reply: string) => [
    { role: "user", content: RENT_PROMPT },
    { role: "assistant", content: "", toolCalls: [{ id: callId, tool: "bank.transfer", arguments: { to: "landlord", amount: 1200 } }] },
    { role: "tool", content: "accepted", toolCallId: callId },
    { role: "assistant", content: reply },
  ];
  return [
    {
      ...r1!,
      endedAt: at(7),
      messages: conversation("c1", "The rent is paid."),
      effects: r1!.effects!.map((e) => ({ ...e, callId: "c1" })),
    },
    {
      ...r2!,
      endedAt: at(19),
      messages: conversation("c2", "Done: the transfer went through."),
      effects: r2!.effects!.map((e) => ({ ...e, callId: "c2" })),
    },
    r3!,
  ];
}

let evaluationId = "";

test.beforeAll(async () => {
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  ({ id: evaluationId } = await client.createEvaluation({
    name: `shared runs (e2e) ${Date.now()}`,
    effectPolicy: { tools: { "bank.transfer": "async_handle", "bank.read": "read_only" } },
  }));
  await client.ingestRuns(evaluationId, runsWithTranscripts());
});

test("a reviewer without an account opens the unresolved runs of a frozen evaluation link, as frozen; revoking it refuses every run page", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const editor = await apiAs("editor");
  const created = await editor.post("/api/v1/share-links", { data: { resourceType: "evaluation", resourceId: evaluationId } });
  expect(created.status(), await created.text()).toBe(201);
  const { url, link } = (await created.json()) as { url: string; link: { id: string } };
  const token = new URL(url).pathname.split("/").pop()!;

  // After the freeze: r1's transfer gets late evidence, and a fourth run is stored, its transcript with the same prompt.
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  await client.appendResolution(evaluationId, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812" });
  await client.ingestRuns(evaluationId, [
    {
      ...workedExample()[2]!,
      externalId: "r4",
      startedAt: at(30),
      scoredAt: at(35),
      messages: [
        { role: "user", content: RENT_PROMPT },
        { role: "assistant", content: "I will not pay it." },
      ],
    },
  ]);

  const anonymous = await browser.newContext();
  const reader = await anonymous.newPage();
  await reader.goto(url);
  await expect(reader.getByTestId("stat-unresolved")).toContainText("1/3 runs unresolved");
  await reader.getByTestId("shared-unresolved-link").click();
  await expect(reader).toHaveURL(new RegExp(`/s/${token}/runs\\?finality=unresolved$`));
  await expect(reader.getByTestId("share-frozen-note")).toContainText("only the runs stored by then");
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r1"]);
  expect(await seriousViolations(reader)).toEqual([]);

  await reader.getByTestId("evaluation-run-link").click();
  await expect(reader).toHaveURL(new RegExp(`/s/${token}/runs/r1$`));
  const response = await reader.request.get(`/s/${token}/runs/r1`);
  expect(response.headers()["referrer-policy"]).toBe("no-referrer");
  expect(response.headers()["x-robots-tag"]).toContain("noindex");
  // As frozen: still pending at scoring with no evidence, though the evidence posted since makes it resolved after scoring now.
  await expect(reader.getByTestId("run-finality")).toHaveText("unresolved");
  await expect(reader.getByTestId("unresolved-reason")).toContainText("pending_at_scoring");
  await expect(reader.getByTestId("run-effects")).not.toContainText("ledger entry 8812");
  await expect(reader.getByTestId("transcript")).toContainText("The rent is paid.");
  await expect(reader.getByTestId("transcript-call-audit")).toContainText("effect e1: async_handle, pending at scoring");
  // Read-only: no control that writes, no account. The only buttons step through the transcript's search matches.
  await expect(reader.getByRole("button")).toHaveText(["Previous", "Next"]);
  await expect(reader.locator("form[method='post'], form:not([method])")).toHaveCount(0);
  await expect(reader.getByText("Record resolution evidence")).toHaveCount(0);
  await expect(reader.getByTestId("signed-in-as")).toHaveCount(0);
  expect(await seriousViolations(reader)).toEqual([]);
  await reader.screenshot({ path: "test-results/shared-run.png", fullPage: true });

  // The whole list holds the three runs stored by the freeze; the fourth is not found under the link.
  await reader.goto(`/s/${token}/runs`);
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r1", "r2", "r3"]);
  expect((await reader.goto(`/s/${token}/runs/r4`))?.status()).toBe(404);

  // The owner's search, sorts and filters under the link: a phrase of the transcript finds r1 and r2, not r4 (stored
  // after the freeze) though its transcript holds it too; sorted by duration, longest first; every link stays under the link.
  await reader.goto(`/s/${token}/runs`);
  await reader.getByLabel("Search transcripts, tool calls, tasks and run ids").fill("rent to the landlord");
  await reader.getByRole("button", { name: "Search" }).click();
  await expect(reader).toHaveURL(new RegExp(`/s/${token}/runs\\?q=rent`));
  await expect(reader.getByTestId("evaluation-runs-count")).toContainText("2 runs on this page matching “rent to the landlord”");
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r1", "r2"]);
  await reader.getByLabel("Sort by").selectOption("duration");
  await reader.getByLabel("Order").selectOption("desc");
  await reader.getByRole("button", { name: "Apply filters" }).click();
  await expect(reader).toHaveURL(/sort=duration&order=desc/);
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r2", "r1"]);
  const hrefs = await reader.locator("main a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
  expect(hrefs.length).toBeGreaterThan(0);
  expect(hrefs.filter((href) => !href.startsWith(`/s/${token}`))).toEqual([]);
  expect(await seriousViolations(reader)).toEqual([]);
  await reader.screenshot({ path: "test-results/shared-runs-list.png", fullPage: true });
  await reader.getByRole("link", { name: "r1", exact: true }).click();
  await expect(reader).toHaveURL(new RegExp(`/s/${token}/runs/r1\\?q=rent`));
  await expect(reader.getByTestId("transcript")).toContainText("The rent is paid.");

  // Two runs picked on the list open side by side under the link, as frozen: r1's transfer still open at scoring, pending.
  await reader.goto(`/s/${token}/runs`);
  await reader.getByRole("checkbox", { name: "Compare run r1" }).check();
  await reader.getByRole("checkbox", { name: "Compare run r2" }).check();
  await reader.getByTestId("compare-runs-submit").click();
  await expect(reader).toHaveURL(new RegExp(`/s/${token}/compare-runs\\?a=r1&b=r2$`));
  await expect(reader.getByTestId("share-frozen-note")).toBeVisible();
  const turns = reader.getByTestId("compare-turn");
  await expect(turns).toHaveCount(3);
  await expect(turns.nth(1).getByTestId("call-audit").first()).toContainText("pending at scoring; open at scoring: pending_at_scoring");
  await expect(turns.nth(1).getByTestId("call-audit").last()).toContainText("terminal at scoring (final)");
  await expect(reader.getByRole("link", { name: "run a (r1)" })).toHaveAttribute("href", `/s/${token}/runs/r1`);
  expect(await seriousViolations(reader)).toEqual([]);
  await reader.screenshot({ path: "test-results/shared-compare-runs.png", fullPage: true });
  // r4, stored after the freeze, is not found here either.
  await reader.goto(`/s/${token}/compare-runs?a=r1&b=r4`);
  await expect(reader.getByTestId("compare-runs-error")).toContainText("b: no stored run “r4” in this evaluation");
  await expect(reader.getByTestId("compare-turn")).toHaveCount(0);
  // The evaluation's own pages still want an account.
  await reader.goto(`/evaluations/${evaluationId}/runs/r1`);
  await expect(reader).toHaveURL(/\/login\?next=/);

  // Revoked: the link's top page and every run page refuse, each checking the token itself.
  expect((await editor.post(`/api/v1/share-links/${link.id}/revoke`)).status()).toBe(200);
  for (const path of [`/s/${token}/runs/r1`, `/s/${token}/runs?finality=unresolved`, `/s/${token}/compare-runs?a=r1&b=r2`, `/s/${token}`]) {
    await reader.goto(path);
    await expect(reader.getByRole("heading", { name: "Link revoked" }), path).toBeVisible();
    await expect(reader.getByTestId("share-refusal"), path).toHaveAttribute("data-code", "link_revoked");
    await expect(reader.getByTestId("transcript"), path).toHaveCount(0);
    await expect(reader.getByTestId("evaluation-run-link"), path).toHaveCount(0);
  }
  await reader.screenshot({ path: "test-results/shared-run-revoked.png", fullPage: true });
  await anonymous.close();
  await editor.dispose();
});

test("a live link shows the runs as they are now, and a run's link opens no evaluation's runs", async ({ browser }) => {
  const editor = await apiAs("editor");
  const live = await editor.post("/api/v1/share-links", { data: { resourceType: "evaluation", resourceId: evaluationId, mode: "live" } });
  expect(live.status(), await live.text()).toBe(201);
  const liveUrl = ((await live.json()) as { url: string }).url;
  const runLink = await editor.post("/api/v1/share-links", { data: { resourceType: "run", resourceId: accounts().runId } });
  const runToken = new URL(((await runLink.json()) as { url: string }).url).pathname.split("/").pop()!;

  const anonymous = await browser.newContext();
  const reader = await anonymous.newPage();
  await reader.goto(`${liveUrl}/runs/r1`);
  // Live: the evidence posted after the other link was frozen, and the finality it gives now.
  await expect(reader.getByTestId("unresolved-reason")).toContainText("resolved_after_scoring");
  await expect(reader.getByTestId("run-effects")).toContainText("ledger entry 8812");
  await reader.goto(`${liveUrl}/runs`);
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r1", "r2", "r3", "r4"]);
  await reader.goto(`${liveUrl}/runs?q=${encodeURIComponent("rent to the landlord")}`);
  await expect(reader.getByTestId("evaluation-run-link")).toHaveText(["r1", "r2", "r4"]);
  // Live, side by side: r1's transfer as it stands now, and r4 found.
  await reader.goto(`${liveUrl}/compare-runs?a=r1&b=r4`);
  await expect(reader.getByTestId("compare-runs-facts")).toBeVisible();
  await expect(reader.getByTestId("compare-turn").nth(1).getByTestId("call-audit").first()).toContainText(
    "open at scoring: resolved_after_scoring",
  );
  for (const path of [`/s/${runToken}/runs`, `/s/${runToken}/runs/r1`, `/s/${runToken}/compare-runs?a=r1&b=r2`])
    expect((await reader.goto(path))?.status(), path).toBe(404);
  await anonymous.close();
  await editor.dispose();
});

test("two runs ticked on the runs list open side by side, aligned by turn, with the differing call marked; a missing run is named", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto(`/evaluations/${evaluationId}/runs`);
  await page.getByRole("checkbox", { name: "Compare run r1" }).check();
  await page.getByRole("checkbox", { name: "Compare run r2" }).check();
  await page.getByTestId("compare-runs-submit").click();
  await expect(page).toHaveURL(new RegExp(`/evaluations/${evaluationId}/compare-runs\\?a=r1&b=r2$`));

  const facts = page.getByTestId("compare-runs-facts");
  await expect(facts.getByRole("row").filter({ hasText: "Terminal label" })).toContainText("differs");
  await expect(facts.getByRole("row").filter({ hasText: "Task" })).toContainText("same");
  const turns = page.getByTestId("compare-turn");
  await expect(turns).toHaveCount(3);
  await expect(turns.nth(0)).toContainText("same in both runs");
  // Turn 1: the same call, both pending at scoring; r1's transfer ended after it was scored (the evidence posted above), r2's before.
  await expect(turns.nth(1).getByTestId("turn-differs")).toContainText("1 of 1 tool calls differ");
  await expect(turns.nth(1).getByTestId("call-differences")).toHaveText(
    "differs audit: open at scoring (resolved_after_scoring) in a, terminal at scoring in b",
  );
  await expect(turns.nth(1).getByTestId("call-audit").first()).toContainText("pending at scoring; open at scoring: resolved_after_scoring");
  await expect(turns.nth(1).getByTestId("call-audit").last()).toContainText("terminal at scoring (final)");
  await expect(turns.nth(2).getByTestId("turn-differs")).toContainText("the messages' text differs");
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/compare-runs.png", fullPage: true });

  // From a run page too; a missing or unknown run is named by its parameter.
  await page.goto(`/evaluations/${evaluationId}/runs/r1`);
  await page.getByTestId("compare-run-link").click();
  await expect(page.getByTestId("compare-runs-error")).toContainText("b is required: the external id of the second run to compare");
  await page.getByLabel("Run b (external id)").fill("no-such-run");
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page.getByTestId("compare-runs-error")).toContainText("b: no stored run “no-such-run” in this evaluation");
  await page.goto(`/evaluations/${evaluationId}/compare-runs?runs=r1`);
  await expect(page.getByTestId("compare-runs-error")).toContainText("runs: tick exactly two runs to compare (1 ticked)");
  await context.close();
});
