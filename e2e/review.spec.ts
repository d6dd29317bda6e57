import { request } from "@playwright/test";
import { accounts, bearer } from "./accounts";
import { apiAs, BASE_URL, expect, storageStateFor, test } from "./fixtures";

// The protocol review in Chromium: a reviewer codes a protocol blind, a second reviewer codes it
// blind too, both then see each other's codes and whether they agree, an editor reconciles, the
// history shows every step, Table 3 follows, and the LaTeX export matches the matrix.
test.describe.configure({ mode: "serial" });

interface Matrix {
  protocols: { id: string; name: string }[];
  matrix: Record<string, Record<string, string>>;
  /** How many reviewers coded each cell: Table A.1 marks a consensus resting on fewer than two with a superscript 1. */
  consensusReviewers: Record<string, Record<string, number>>;
  table3: { field: string; counts: Record<string, number> }[];
}

test("two reviewers code blind, see agreement, an editor reconciles, and Table 3 and the LaTeX follow", async ({ browser }) => {
  test.setTimeout(90_000);
  const editorApi = await apiAs("editor");
  const before = (await (await editorApi.get("/api/v1/protocols")).json()) as Matrix;
  const osworld = before.protocols.find((p) => p.name === "OSWorld")!;
  expect(before.table3.find((r) => r.field === "open_work")!.counts).toEqual({ E: 0, P: 1, NR: 3, NA: 2 });

  // Reviewer one, in the browser: blind until all three fields are coded.
  const context = await browser.newContext({ storageState: await storageStateFor("reviewer") });
  const page = await context.newPage();
  await page.goto(`/protocols/${osworld.id}`);
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await expect(page.getByTestId("field-open_work").getByRole("table")).toHaveCount(0);
  // E without a basis: refused in the form, naming the field, nothing saved.
  const openWork = page.getByTestId("code-form-open_work");
  await openWork.getByLabel("Code").selectOption("E");
  await openWork.getByLabel("Source location").fill("Paper Sec. 4");
  await openWork.getByRole("button", { name: "Save code" }).click();
  await expect(openWork.getByTestId("field-error")).toHaveText("Basis: a code of E or P needs the reviewer's basis");
  const codeField = async (field: string, code: string, basis: string) => {
    const form = page.getByTestId(`code-form-${field}`);
    await form.getByLabel("Code").selectOption(code);
    await form.getByLabel("Source location").fill("Paper Sec. 4 and App. B");
    await form.getByLabel("Basis (required for E and P)").fill(basis);
    await form.getByLabel("Citations (one per line)").fill("31");
    await form.getByRole("button", { name: "Save code" }).click();
    await expect(page.getByTestId(`history-${field}`)).toContainText("Version 1 (create)");
  };
  await codeField("open_work", "P", "Episodes end on a DONE action; the VM's background processes are not addressed.");
  await codeField("reset_or_retention", "E", "Snapshots restore the VM before each task.");
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await codeField("separate_evidence", "P", "Restoration is described but not verified.");
  await expect(page.getByTestId("blind-notice")).toHaveCount(0);
  await expect(page.getByTestId("field-open_work").getByRole("table", { name: "Other codes of this cell" })).toContainText("the paper");

  // Reviewer two, through the API with their own account: blind too, then codes open work as NR.
  const admin = await apiAs("admin");
  const second = (await (
    await admin.post("/api/v1/users", { data: { email: "second.reviewer@e2e.test", password: "second reviewer pass", role: "reviewer" } })
  ).json()) as { id: string };
  const key = ((await (await admin.post("/api/v1/api-keys", { data: { name: "second", userId: second.id } })).json()) as { key: string })
    .key;
  const reviewer2 = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(key) });
  const blindView = (await (await reviewer2.get(`/api/v1/protocols/${osworld.id}`)).json()) as {
    blind: boolean;
    fields: { others: unknown[] }[];
  };
  expect(blindView.blind).toBe(true);
  expect(blindView.fields.every((f) => f.others.length === 0)).toBe(true);
  for (const [field, code, basis] of [
    ["open_work", "NR", undefined],
    ["reset_or_retention", "E", "VM snapshots are restored per task."],
    ["separate_evidence", "P", "No check that restoration succeeded."],
  ] as const) {
    const saved = await reviewer2.put(`/api/v1/protocols/${osworld.id}/codes`, {
      data: {
        field,
        expectedVersion: null,
        ledger: { code, sourceLocation: "Paper Sec. 4", ...(basis ? { basis } : {}), citations: ["31"], sourcesReadOn: "2026-11-29" },
        reason: "first coding",
      },
    });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  // A stale save is refused with both versions.
  const stale = await reviewer2.put(`/api/v1/protocols/${osworld.id}/codes`, {
    data: {
      field: "open_work",
      expectedVersion: null,
      ledger: { code: "NA", sourceLocation: "x", citations: [], sourcesReadOn: "2026-11-29" },
      reason: "other tab",
    },
  });
  expect(stale.status()).toBe(409);
  expect(((await stale.json()) as { error: { details: { current: { code: string } } } }).error.details.current.code).toBe("NR");

  // Both now see agreement: they disagree on open work and agree on the other two fields.
  await page.reload();
  await expect(page.getByTestId("agree-open_work")).toHaveText("no");
  await expect(page.getByTestId("agree-reset_or_retention")).toHaveText("yes");
  const seen = (await (await reviewer2.get(`/api/v1/protocols/${osworld.id}`)).json()) as {
    blind: boolean;
    fields: { field: string; agree: boolean | null }[];
  };
  expect([seen.blind, seen.fields.map((f) => f.agree)]).toEqual([false, [false, true, true]]);
  await page.goto("/protocols");
  await expect(page.getByTestId("agreement").getByRole("row", { name: /Open work/ })).toContainText("OSWorld");
  await page.screenshot({ path: "test-results/protocols-reviewer.png", fullPage: true });
  await context.close();

  // The editor reconciles open work to P; the consensus history shows both steps; Table 3 follows.
  const editorContext = await browser.newContext({ storageState: await storageStateFor("editor") });
  const editor = await editorContext.newPage();
  await editor.goto(`/protocols/${osworld.id}`);
  const reconcile = editor.getByTestId("consensus-form-open_work");
  await reconcile.getByLabel("Consensus code").selectOption("P");
  await reconcile.getByLabel("Rationale").fill("The termination rule is stated; its reach over background processes is not.");
  await reconcile.getByLabel("Reason for this change").fill("reconciled the two reviewers");
  await reconcile.getByRole("button", { name: "Reconcile" }).click();
  await expect(editor.getByTestId("consensus-open_work")).toContainText("P Partial");
  await expect(editor.getByTestId("consensus-history-open_work").getByRole("listitem")).toHaveCount(2);
  await editor.screenshot({ path: "test-results/protocol.png", fullPage: true });

  await editor.goto("/protocols");
  const openRow = editor.getByTestId("table3").getByRole("row", { name: /Open or descendant work/ });
  await expect(openRow.getByRole("cell").nth(1)).toHaveText("2 (2)"); // Partial: now equal to the paper's 2
  // NR: 2 here, 6 in the paper, with 2 cells uncoded and no count above the paper's: pending, not a difference.
  await expect(openRow.getByRole("cell").nth(2)).toHaveText("2 (6)");
  await editor.screenshot({ path: "test-results/protocols.png", fullPage: true });

  // The LaTeX Table A.1 has exactly the matrix's cells.
  const { matrix, consensusReviewers } = (await (await editorApi.get("/api/v1/protocols")).json()) as Matrix;
  const latex = await (await editorApi.get("/api/v1/protocols/export?format=latex-a1")).text();
  const marked = (name: string, field: string) => ((consensusReviewers[name]?.[field] ?? 0) < 2 ? "$^{1}$" : "");
  for (const p of before.protocols) {
    const cells = ["open_work", "reset_or_retention", "separate_evidence"].map((f) =>
      matrix[p.name]?.[f] ? `${matrix[p.name]![f]}${marked(p.name, f)}` : "--",
    );
    expect(latex).toContain(`${p.name} & ${cells.join(" & ")} \\\\`);
  }
  expect(latex).toContain("OSWorld & P & E & P \\\\");
  const table3 = await (await editorApi.get("/api/v1/protocols/export?format=latex-table3")).text();
  expect(table3).toContain("Open or descendant work & 0 & 2 & 2 & 2 \\\\");

  // The matrix can be shared: frozen consensus and Table 3, to anyone with the link, no account.
  const shared = await editorApi.post("/api/v1/share-links", { data: { resourceType: "protocol_matrix" } });
  expect(shared.status()).toBe(201);
  const { url } = (await shared.json()) as { url: string };
  const anonymous = await browser.newContext();
  const reader = await anonymous.newPage();
  await reader.goto(url);
  await expect(reader.getByRole("heading", { name: "Protocol review: consensus codes" })).toBeVisible();
  await expect(reader.getByTestId("protocol-matrix").getByRole("row", { name: /OSWorld/ })).toContainText("P Partial");
  await expect(reader.getByRole("link", { name: "OSWorld" })).toHaveCount(0);
  await anonymous.close();
  expect(
    (await editorApi.post("/api/v1/share-links", { data: { resourceType: "protocol_matrix", resourceId: osworld.id } })).status(),
  ).toBe(400);

  await editorContext.close();
  await reviewer2.dispose();
  await admin.dispose();
  await editorApi.dispose();
  expect(accounts().users.reviewer.email).toBe("reviewer@e2e.test");
});

test("a cell one reviewer coded says what its consensus waits for; saving confirms the version, and the history names its author", async ({
  browser,
}) => {
  const editorApi = await apiAs("editor");
  const { protocols, matrix } = (await (await editorApi.get("/api/v1/protocols")).json()) as Matrix;
  // A reference protocol the paper left uncoded on this field (its seeds give no code).
  const uncoded = protocols.find((p) => matrix[p.name]?.["separate_evidence"] === undefined && p.name !== "OSWorld")!;
  expect(uncoded).toBeDefined();
  const context = await browser.newContext({ storageState: await storageStateFor("reviewer") });
  const page = await context.newPage();
  await page.goto(`/protocols/${uncoded.id}`);
  await expect(page.getByTestId("consensus-hint-separate_evidence")).toContainText("0 reviewers have coded it so far");
  const form = page.getByTestId("code-form-separate_evidence");
  await form.getByLabel("Code").selectOption("NR");
  await form.getByLabel("Source location").fill("Paper Sec. 3");
  await form.getByRole("button", { name: "Save code" }).click();
  await expect(page.getByText("Saved as version 1").first()).toBeVisible();
  await expect(page.getByTestId("history-separate_evidence")).toContainText("Version 1 (create)");
  await expect(page.getByTestId("history-separate_evidence").getByTestId("history-author")).toHaveText(
    `by ${accounts().users.reviewer.email}`,
  );
  await expect(page.getByTestId("consensus-hint-separate_evidence")).toContainText(
    "a consensus is set by a reconciler (an editor or admin) under Reconcile, usually once two reviewers have coded the cell; 1 reviewer has coded it so far.",
  );
  await context.close();
  await editorApi.dispose();
});
