import { readFile } from "node:fs/promises";
import { request } from "@playwright/test";
import { accounts, bearer } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";

// A team's own protocol in Chromium (docs/review.md): an editor adds it, two reviewers code it blind, the
// editor reconciles, writes the completion argument's four answers with two routes and a canary
// experiment as evidence, sees the flags, exports the Markdown and shares the argument; a viewer
// opens the shared page read-only.
test.describe.configure({ mode: "serial" });

const FIELDS = ["open_work", "reset_or_retention", "separate_evidence"] as const;

test("an editor adds a protocol, reviewers code it blind, and the editor argues, exports and shares its completion", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const { experimentId } = accounts();
  const name = `Team Bench ${Date.now()}`;

  // The editor adds the protocol through the form on /protocols.
  const editorContext = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await editorContext.newPage();
  await page.goto("/protocols");
  const add = page.getByTestId("protocol-add-form");
  await add.getByLabel("Name").fill(name);
  await add.getByLabel("Benchmark version (optional)").fill("v3.1");
  await add.getByLabel("Scope statement (optional)").fill("Web tasks in our staging sandbox; outbound email is out of scope.");
  await add.getByLabel("Source links (one URL per line, optional)").fill("ftp://not-a-web-link");
  await add.getByRole("button", { name: "Add protocol" }).click();
  await expect(add.getByTestId("field-error")).toContainText("Source links");
  await add.getByLabel("Source links (one URL per line, optional)").fill("https://example.test/team-bench");
  await add.getByRole("button", { name: "Add protocol" }).click();
  await expect(page).toHaveURL(/\/protocols\/[0-9a-f-]{36}$/);
  const protocolId = page.url().split("/").pop()!;
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  await expect(page.getByTestId("protocol-about")).toContainText("v3.1");
  await expect(page.getByTestId("protocol-history")).toContainText("Version 1");

  // It is listed beside the paper's ten, not marked as reference.
  const editorApi = await apiAs("editor");
  const listed = (await (await editorApi.get("/api/v1/protocols")).json()) as {
    protocols: { id: string; name: string; fromPaper: boolean }[];
  };
  expect(listed.protocols.find((p) => p.id === protocolId)).toMatchObject({ name, fromPaper: false });
  expect(listed.protocols.filter((p) => p.fromPaper)).toHaveLength(10);

  // Two reviewers code it blind: each sees only their own codes until they have coded every field.
  const admin = await apiAs("admin");
  const second = (await (
    await admin.post("/api/v1/users", {
      data: { email: `team.reviewer.${Date.now()}@e2e.test`, password: "second reviewer pass", role: "reviewer" },
    })
  ).json()) as { id: string };
  const key = (
    (await (await admin.post("/api/v1/api-keys", { data: { name: "team bench", userId: second.id } })).json()) as { key: string }
  ).key;
  const reviewers = [await apiAs("reviewer"), await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(key) })];
  const codes: Record<(typeof FIELDS)[number], [string, string]> = {
    open_work: ["P", "NR"],
    reset_or_retention: ["E", "E"],
    separate_evidence: ["P", "P"],
  };
  for (const [r, reviewer] of reviewers.entries()) {
    for (const field of FIELDS) {
      const code = codes[field][r]!;
      const saved = await reviewer.put(`/api/v1/protocols/${protocolId}/codes`, {
        data: {
          field,
          expectedVersion: null,
          ledger: {
            code,
            sourceLocation: "README, Evaluation",
            ...(code === "NR" ? {} : { basis: "The README states it." }),
            citations: [],
            sourcesReadOn: "2026-11-30",
          },
          reason: "first coding",
        },
      });
      expect(saved.status(), await saved.text()).toBe(200);
      const seen = (await (await reviewer.get(`/api/v1/protocols/${protocolId}`)).json()) as {
        blind: boolean;
        fields: { others: unknown[] }[];
      };
      // Blind until this reviewer's last field; the first reviewer sees no one else even then.
      expect(seen.blind).toBe(field !== "separate_evidence");
    }
  }
  const both = (await (await reviewers[0]!.get(`/api/v1/protocols/${protocolId}`)).json()) as {
    fields: { field: string; agree: boolean | null }[];
  };
  expect(both.fields.map((f) => f.agree)).toEqual([false, true, true]);
  // The editor reconciles reset or retention to E: the argument will be checked against it.
  const reconciled = await editorApi.put(`/api/v1/protocols/${protocolId}/consensus`, {
    data: {
      field: "reset_or_retention",
      expectedVersion: null,
      code: "E",
      rationale: "Both reviewers: the sandbox is rebuilt per task.",
      reason: "reconciled",
    },
  });
  expect(reconciled.status()).toBe(200);

  // The editor writes the argument: four answers, two routes, the canary experiment as evidence.
  await page.goto(`/protocols/${protocolId}/completion-argument`);
  const editor = page.getByTestId("argument-editor");
  const answers = [
    "Task success per episode over the episode's own window; one episode is one analysis unit.",
    "The agent's stop action ends the episode; a state checker reads the sandbox and scores it.",
    "Background shell jobs the agent starts, and the shared cache between episodes.",
    "A canary replay shows every background job cancelled before scoring; the sandbox is rebuilt per task.",
  ];
  for (const [i, answer] of answers.entries()) {
    await editor.getByLabel(`Answer to question ${i + 1}`, { exact: true }).fill(answer);
    await editor.getByLabel(`Question ${i + 1}: source location`, { exact: true }).fill(`README §${i + 1}`);
    await editor.getByLabel(`Question ${i + 1}: sources read on`, { exact: true }).fill("2026-11-30");
  }
  await editor.getByRole("button", { name: "Add route" }).click();
  await editor.getByLabel("Route 1: kind", { exact: true }).selectOption("descendant_processes");
  await editor.getByLabel("Route 1: description", { exact: true }).fill("Background shell jobs started by the agent");
  await editor.getByLabel("Route 1: treatment", { exact: true }).selectOption("cancelled_with_evidence");
  await editor.getByTestId("editor-route-0").getByRole("button", { name: "Add evidence" }).click();
  await editor.getByLabel("Route 1 evidence, link 1: item", { exact: true }).selectOption(experimentId);
  await editor.getByRole("button", { name: "Add route" }).click();
  await editor.getByLabel("Route 2: kind", { exact: true }).selectOption("shared_stores");
  await editor.getByLabel("Route 2: description", { exact: true }).fill("The shared cache between episodes");
  await editor.getByLabel("Route 2: treatment", { exact: true }).selectOption("unresolved");
  await editor.getByTestId("editor-finality").getByRole("button", { name: "Add evidence" }).last().click();
  await editor.getByLabel("Question 4 evidence, link 1: item", { exact: true }).selectOption(experimentId);
  await editor.getByLabel("Reason for this change", { exact: true }).fill("first draft of the argument");
  await editor.getByRole("button", { name: "Save the argument" }).click();

  // At a glance: all four answered, route 2 untreated, and the flag against the E for reset.
  await expect(page.getByTestId("questions-answered")).toHaveText("Questions answered: 4/4");
  await expect(page.getByTestId("routes-lacking-treatment")).toContainText("2. The shared cache between episodes");
  await expect(page.getByTestId("routes-lacking-evidence")).toContainText("none");
  await expect(page.getByTestId("argument-flags")).toContainText(
    "Reset or retention is coded E (explicit), but the argument leaves route 2",
  );
  await expect(page.getByTestId("argument-routes").getByRole("row", { name: /Background shell jobs/ })).toContainText("completed");
  await expect(page.getByTestId("argument-evidence")).toContainText("experiment");
  await expect(page.getByTestId("argument-history")).toContainText("Version 1");
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/completion-argument.png", fullPage: true });

  // A stale edit is refused with both versions; a link to an experiment that does not exist, naming the link.
  const current = (await (await editorApi.get(`/api/v1/protocols/${protocolId}/completion-argument`)).json()) as {
    current: { version: number; argument: { evidence: unknown[] } };
  };
  expect(current.current.version).toBe(1);
  const stale = await editorApi.post(`/api/v1/protocols/${protocolId}/completion-argument`, {
    data: { expectedVersion: null, argument: current.current.argument, reason: "other tab" },
  });
  expect(stale.status()).toBe(409);
  expect(((await stale.json()) as { error: { details: { current: { version: number } } } }).error.details.current.version).toBe(1);
  const missing = await editorApi.post(`/api/v1/protocols/${protocolId}/completion-argument`, {
    data: {
      expectedVersion: 1,
      argument: { ...current.current.argument, evidence: [{ kind: "experiment", id: "00000000-0000-4000-8000-000000000000" }] },
      reason: "bad link",
    },
  });
  expect(missing.status()).toBe(400);
  expect(((await missing.json()) as { error: { field: string } }).error.field).toBe("argument.evidence.0.id");

  // The Markdown export, downloaded from the page.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-markdown").click()]);
  const markdown = await readFile((await download.path())!, "utf8");
  expect(markdown).toContain(`# Completion argument: ${name}`);
  expect(markdown).toContain("| 2 | Shared stores | The shared cache between episodes | in | Unresolved | none |");
  expect(markdown).toContain("Questions answered: 4/4.");
  const latex = await (await editorApi.get(`/api/v1/protocols/${protocolId}/completion-argument?format=latex`)).text();
  expect(latex).toContain("\\subsection*{4. How does the protocol establish finality and separation?}");

  // Shared on its own: a viewer opens it read-only, no editor, no author named.
  const shared = await editorApi.post("/api/v1/share-links", { data: { resourceType: "completion_argument", resourceId: protocolId } });
  expect(shared.status(), await shared.text()).toBe(201);
  const { url } = (await shared.json()) as { url: string };
  const viewerContext = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const reader = await viewerContext.newPage();
  await reader.goto(url);
  await expect(reader.getByTestId("share-banner")).toContainText(`Read-only shared completion argument of “${name}”`);
  await expect(reader.getByTestId("questions-answered")).toHaveText("Questions answered: 4/4");
  await expect(reader.getByTestId("argument-flags")).toContainText("Reset or retention is coded E");
  await expect(reader.getByTestId("argument-editor")).toHaveCount(0);
  await expect(reader.getByRole("button", { name: /Save/ })).toHaveCount(0);
  await expect(reader.locator("body")).not.toContainText("editor@e2e.test");
  // A frozen share of the protocol matrix carries the argument too.
  const matrixLink = await editorApi.post("/api/v1/share-links", { data: { resourceType: "protocol_matrix" } });
  expect(matrixLink.status()).toBe(201);
  await reader.goto(((await matrixLink.json()) as { url: string }).url);
  await expect(reader.getByTestId("shared-arguments")).toContainText(`${name}: 4/4 questions answered, 1 flag(s)`);
  // The viewer's own page of the argument is read-only too.
  await reader.goto(`/protocols/${protocolId}/completion-argument`);
  await expect(reader.getByTestId("questions-answered")).toHaveText("Questions answered: 4/4");
  await expect(reader.getByTestId("argument-editor")).toHaveCount(0);
  const refused = await (
    await apiAs("viewer")
  ).post(`/api/v1/protocols/${protocolId}/completion-argument`, {
    data: { expectedVersion: 1, argument: current.current.argument, reason: "viewer" },
  });
  expect(refused.status()).toBe(403);

  await viewerContext.close();
  await editorContext.close();
  for (const r of reviewers) await r.dispose();
  await admin.dispose();
  await editorApi.dispose();
});

test("the paper's published codes can be counted as one more rater, and left out again", async ({ browser }) => {
  const context = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const page = await context.newPage();
  await page.goto("/protocols");
  // The reference protocols' cells the paper gives no code for say why they are uncoded, and why Table 3 falls short of the paper's.
  await expect(page.getByTestId("matrix-uncoded-note")).toContainText("no consensus yet");
  await expect(page.getByTestId("table3-uncoded-note")).toContainText("so some cells start uncoded here");
  const toggle = page.getByTestId("paper-rater-toggle");
  await expect(toggle).toHaveText("Count the paper as a rater");
  await expect(page.getByText("the paper's codes are not a rater here.")).toBeVisible();
  await toggle.click();
  await expect(page).toHaveURL(/[?&]paper=true/);
  await expect(toggle).toHaveText("Leave the paper out");
  await expect(page.getByText("the paper's published codes count as one more rater.")).toBeVisible();
  // Every field is still reported: a kappa, or the reason it is undefined.
  await expect(page.getByTestId("agreement").locator("tbody tr")).toHaveCount(3);
  await toggle.click();
  await expect(page).not.toHaveURL(/paper=true/);
  await expect(toggle).toHaveText("Count the paper as a rater");
  await context.close();
});
