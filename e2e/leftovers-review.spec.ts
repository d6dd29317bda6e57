import { apiAs, expect, storageStateFor, test } from "./fixtures";

// The protocol review's walkthrough leftovers in Chromium: a consensus resting on one reviewer's code
// is marked with its reviewer count (matrix, Table 3, exports); uncoded cells are not differences
// from the paper; every role reads one coded-so-far count; and the add-protocol form's errors.

interface MatrixAnswer {
  protocols: { id: string; name: string; fromPaper: boolean }[];
  consensusReviewers: Record<string, Partial<Record<string, number>>>;
  matrix: Record<string, Partial<Record<string, string>>>;
  table3: {
    label: string;
    counts: Record<string, number>;
    paper: Record<string, number>;
    uncoded: number;
    mismatches: unknown[];
    shortfalls: unknown[];
    singleReviewer: string[];
  }[];
}

const ledger = (code: string) => ({
  code,
  sourceLocation: "README §2",
  basis: "The README says so in one line.",
  citations: ["1"],
  sourcesReadOn: "2026-12-01",
});

test("a consensus resting on one reviewer's code is marked with the reviewer count on the matrix, in Table 3 and in every export", async ({
  browser,
}) => {
  const editor = await apiAs("editor");
  const reviewer = await apiAs("reviewer");
  const name = `One reader ${Date.now()}`;
  const created = await editor.post("/api/v1/protocols", { data: { name } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // One reviewer codes open work; the editor reconciles it as it is, with no second reading.
  const coded = await reviewer.put(`/api/v1/protocols/${id}/codes`, {
    data: { field: "open_work", expectedVersion: null, ledger: ledger("P"), reason: "first coding" },
  });
  expect(coded.status(), await coded.text()).toBe(200);
  const reconciled = await editor.put(`/api/v1/protocols/${id}/consensus`, {
    data: { field: "open_work", expectedVersion: null, code: "P", rationale: "the one reading we have", reason: "reconciled" },
  });
  expect(reconciled.status(), await reconciled.text()).toBe(200);

  const view = (await (await editor.get("/api/v1/protocols")).json()) as MatrixAnswer;
  expect(view.consensusReviewers[name]).toEqual({ open_work: 1 });

  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto("/protocols");
  const row = page.getByTestId("protocol-matrix").getByRole("row", { name: new RegExp(name) });
  await expect(row.getByTestId("single-reviewer")).toHaveText("1 reviewer");
  await expect(page.getByTestId("matrix-single-reviewer-note")).toContainText("rests on one reviewer's code");
  // Table 3 (the paper's ten): each row's count of cells resting on one reviewer, as the API counts them.
  const table3 = page.getByTestId("table3");
  await expect(table3.getByRole("columnheader", { name: "Resting on one reviewer" })).toBeVisible();
  for (const r of view.table3) {
    const counted = Object.values(r.counts).reduce((a, b) => a + b, 0);
    await expect(table3.getByRole("row", { name: new RegExp(r.label) }).getByTestId("table3-single-reviewer")).toHaveText(
      `${r.singleReviewer.length}/${counted}`,
    );
  }
  // The paper's codes are one person's: its six coded protocols rest on one reviewer until someone codes them too.
  expect(view.table3.every((r) => r.singleReviewer.length > 0)).toBe(true);
  // The per-protocol page says it too.
  await page.goto(`/protocols/${id}`);
  await expect(page.getByTestId("consensus-open_work").getByTestId("single-reviewer")).toHaveText("1 reviewer");

  // Exports: the CSV's consensusReviewers column, the JSON's map, the LaTeX tables' marks.
  const csv = await (await editor.get("/api/v1/protocols/export?format=csv")).text();
  const [header, ...lines] = csv.replace(/^\uFEFF/, "").split(/\r?\n/);
  const columns = header!.split(",");
  expect(columns).toContain("consensusReviewers");
  const ours = lines.find((line) => line.startsWith(`${name},open_work,`))!.split(",");
  expect(ours[columns.indexOf("consensusReviewers")]).toBe("1");
  const json = (await (await editor.get("/api/v1/protocols/export?format=json")).json()) as MatrixAnswer & {
    consensusReviewers: MatrixAnswer["consensusReviewers"];
  };
  expect(json.consensusReviewers[name]).toEqual({ open_work: 1 });
  const a1 = await (await editor.get("/api/v1/protocols/export?format=latex-a1")).text();
  expect(a1).toContain(`${name} & P$^{1}$ & -- & -- \\\\`);
  expect(a1).toContain("$^{1}$ the consensus rests on one reviewer's code.");
  const single = view.table3.reduce((sum, r) => sum + r.singleReviewer.length, 0);
  const counted = view.table3.reduce((sum, r) => sum + Object.values(r.counts).reduce((a, b) => a + b, 0), 0);
  expect(await (await editor.get("/api/v1/protocols/export?format=latex-table3")).text()).toContain(
    `${single} of ${counted} counted cells rest on one reviewer's code.`,
  );
  await context.close();
});

test("Table 3 lists no difference that is only uncoded cells: a count below the paper's while cells are uncoded is pending", async ({
  browser,
}) => {
  const editor = await apiAs("editor");
  const view = (await (await editor.get("/api/v1/protocols")).json()) as MatrixAnswer;
  // However other tests coded the paper's cells, the rule: a difference only where a coded count passes the paper's, or nothing is uncoded.
  for (const r of view.table3) {
    const contradicted = r.uncoded === 0 || Object.keys(r.counts).some((code) => r.counts[code]! > r.paper[code]!);
    expect(r.mismatches.length > 0).toBe(contradicted && Object.keys(r.counts).some((code) => r.counts[code] !== r.paper[code]));
    if (!contradicted) expect(r.shortfalls.length).toBeGreaterThan(0);
  }
  const context = await browser.newContext({ storageState: await storageStateFor("viewer") });
  const page = await context.newPage();
  await page.goto("/protocols");
  const anyDifference = view.table3.some((r) => r.mismatches.length > 0);
  await expect(page.getByTestId("table3-mismatches")).toHaveCount(anyDifference ? 1 : 0);
  if (!anyDifference) await expect(page.getByTestId("table3-pending")).toContainText("No coded cell contradicts the paper's Table 3");
  // A fresh install's matrix codes the paper's six protocols only: pending, not six differences.
  const uncodedOnly = view.table3.every((r) => r.uncoded > 0 && r.mismatches.length === 0);
  if (uncodedOnly) await expect(page.getByText("Where the consensus differs from the paper's Table 3")).toHaveCount(0);
  await context.close();
});

test("the coded-so-far count of a cell is the same for an editor and a viewer", async ({ browser }) => {
  const editor = await apiAs("editor");
  const reviewer = await apiAs("reviewer");
  const created = await editor.post("/api/v1/protocols", { data: { name: `Counted alike ${Date.now()}` } });
  const { id } = (await created.json()) as { id: string };
  const coded = await reviewer.put(`/api/v1/protocols/${id}/codes`, {
    data: { field: "separate_evidence", expectedVersion: null, ledger: ledger("E"), reason: "first coding" },
  });
  expect(coded.status(), await coded.text()).toBe(200);
  for (const role of ["editor", "viewer"] as const) {
    const context = await browser.newContext({ storageState: await storageStateFor(role) });
    const page = await context.newPage();
    await page.goto(`/protocols/${id}`);
    await expect(page.getByTestId("consensus-hint-separate_evidence"), role).toContainText("1 reviewer has coded it so far");
    await expect(page.getByTestId("consensus-hint-open_work"), role).toContainText("0 reviewers have coded it so far");
    await context.close();
  }
});

test("the add-protocol form names its fields in words and drops a field's error once it is edited", async ({ browser }) => {
  const context = await browser.newContext({ storageState: await storageStateFor("editor") });
  const page = await context.newPage();
  await page.goto("/protocols");
  const form = page.getByTestId("protocol-add-form");
  await form.getByLabel("Name").fill(`Form words ${Date.now()}`);
  const sources = form.getByLabel("Source links (one URL per line, optional)");
  await sources.fill("https://example.org/readme\nftp://example.org/data");
  await form.getByRole("button", { name: "Add protocol" }).click();
  const error = form.getByTestId("field-error");
  await expect(error).toHaveText("Source links: the second value (“ftp://example.org/data”): each source must be an http(s) URL");
  await expect(error).not.toContainText("sources:");
  await expect(sources).toHaveAttribute("aria-invalid", "true");
  // Fixing the field takes the message away at once, before any submit.
  await sources.fill("https://example.org/readme\nhttps://example.org/data");
  await expect(error).toHaveCount(0);
  await expect(sources).toHaveAttribute("aria-invalid", "false");
  // A submit that still finds the fault shows it again.
  await sources.fill("ftp://example.org/data");
  await expect(error).toHaveCount(0);
  await form.getByRole("button", { name: "Add protocol" }).click();
  await expect(error).toContainText("Source links: the first value");
  await context.close();
});
