import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { AGENTDOJO_RUNS } from "../lib/testing/importer-fixtures";

// Attack success beside utility, end to end: AgentDojo's own logs uploaded from the import page, the
// evaluation page's table per pipeline and per injection task, then three pipelines uploaded one
// evaluation each and compared. The logs: gpt-4o-2024-05-13 ran banking user_task_0 without attack
// (utility true) and user_task_13 under injection_task_7 (utility false, the attack succeeded);
// claude-3-7-sonnet-20250219 resisted workspace injection_task_1 (utility true); Llama-3.3-70B fell to
// slack injection_task_1 (utility true). Every figure is n/N with 95% Wilson: 1/1 is [20.7%, 100.0%], 0/1 [0.0%, 79.3%].
test.use({ storageState: async ({}, use) => use(await storageStateFor("editor")) });

const LOGS = {
  gpt4o: [
    "runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json",
    "runs__gpt-4o-2024-05-13__banking__user_task_13__important_instructions__injection_task_7.json",
  ],
  claude: ["runs__claude-3-7-sonnet-20250219__workspace__user_task_7__important_instructions__injection_task_1.json"],
  llama: ["runs__meta-llama_Llama-3.3-70B-Instruct__slack__user_task_0__important_instructions__injection_task_1.json"],
};
const ONE_OF_ONE = "1/1 100% [20.7%, 100.0%]";
const NONE_OF_ONE = "0/1 0% [0.0%, 79.3%]";

test("the evaluation page gives utility, utility under attack and attack success per pipeline and per injection task", async ({ page }) => {
  test.setTimeout(120_000);
  const name = `attack outcomes ${Date.now()} (e2e)`;
  await page.goto("/evaluations/import");
  await page
    .getByTestId("import-files")
    .setInputFiles([...LOGS.gpt4o, ...LOGS.claude, ...LOGS.llama].map((file) => `${AGENTDOJO_RUNS}${file}`));
  await page.getByLabel("Evaluation (optional)").fill(name);
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("import-report")).toContainText("4 file(s): 4 imported");
  await page.getByTestId("import-evaluations").getByRole("link", { name }).click();
  await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);

  const pipelines = page.getByTestId("attack-pipelines");
  const row = (pipeline: string) =>
    pipelines.getByRole("row").filter({ has: page.getByRole("rowheader", { name: pipeline, exact: true }) });
  await expect(pipelines.getByRole("row")).toHaveCount(4); // the header and three pipelines
  // Columns: pipeline, runs, then utility, under attack and attack success, each reported, final-only, justified range.
  const cells = (pipeline: string) => row(pipeline).getByRole("cell");
  await expect(cells("gpt-4o-2024-05-13").nth(0)).toHaveText("2");
  await expect(cells("gpt-4o-2024-05-13").nth(1)).toHaveText(ONE_OF_ONE);
  await expect(cells("gpt-4o-2024-05-13").nth(4)).toHaveText(NONE_OF_ONE);
  await expect(cells("gpt-4o-2024-05-13").nth(7)).toHaveText(ONE_OF_ONE);
  await expect(cells("claude-3-7-sonnet-20250219").nth(1)).toHaveText("0/0 (no runs)");
  await expect(cells("claude-3-7-sonnet-20250219").nth(3)).toHaveText("no runs");
  await expect(cells("claude-3-7-sonnet-20250219").nth(7)).toHaveText(NONE_OF_ONE);
  await expect(cells("meta-llama_Llama-3.3-70B-Instruct").nth(7)).toHaveText(ONE_OF_ONE);

  const injections = page.getByTestId("attack-injection-tasks");
  await expect(injections.getByRole("row", { name: /^banking\/injection_task_7/ })).toContainText(ONE_OF_ONE);
  await expect(injections.getByRole("row", { name: /^workspace\/injection_task_1/ })).toContainText(NONE_OF_ONE);
  await expect(injections.getByRole("row", { name: /^slack\/injection_task_1/ })).toContainText(ONE_OF_ONE);
  // Attack success among the statistics' rates: 2 of the 3 attacks succeeded.
  await expect(page.getByTestId("statistics-rates").getByRole("row", { name: /^attack success rate \(reported\)/ })).toContainText("2/3");
  await expect(page.getByTestId("attack-units")).toContainText("3 runs under attack in 3 analysis units");
  expect(await seriousViolations(page)).toEqual([]);
});

test("three pipelines compared: utility and attack success side by side, each with its justified range", async ({ page }) => {
  test.setTimeout(120_000);
  const tag = `attack-compare-${Date.now()}`;
  const ids: string[] = [];
  for (const [key, files] of Object.entries(LOGS)) {
    await page.goto("/evaluations/import");
    await page.getByTestId("import-files").setInputFiles(files.map((file) => `${AGENTDOJO_RUNS}${file}`));
    await page.getByLabel("Evaluation (optional)").fill(`${tag} ${key}`);
    await page.getByTestId("import-submit").click();
    await page
      .getByTestId("import-evaluations")
      .getByRole("link", { name: `${tag} ${key}` })
      .click();
    await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
    ids.push(page.url().split("/").at(-1)!);
  }
  // The API's answer: attack success with its justified range for each.
  const client = evaluationClient({ baseUrl: BASE_URL, apiKey: accounts().users.editor.apiKey });
  const answer = await client.compare(ids);
  expect(answer.evaluations.map((e) => [e.attack.attackSuccess.reported.n, e.attack.attackSuccess.reported.N])).toEqual([
    [1, 1],
    [0, 1],
    [1, 1],
  ]);
  expect(answer.evaluations[0]!.attack.utility.reported).toMatchObject({ n: 1, N: 1 });

  await page.goto(`/evaluations/compare?ids=${ids.join(",")}`);
  const table = page.getByTestId("comparison-attack");
  const cells = (key: string) =>
    table
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: `${tag} ${key}`, exact: true }) })
      .getByRole("cell");
  // Columns: utility, under attack, attack success; each reported, final-only, justified range.
  await expect(cells("gpt4o").nth(0)).toHaveText(ONE_OF_ONE);
  await expect(cells("gpt4o").nth(6)).toHaveText(ONE_OF_ONE);
  await expect(cells("claude").nth(3)).toHaveText(ONE_OF_ONE);
  await expect(cells("claude").nth(6)).toHaveText(NONE_OF_ONE);
  await expect(cells("claude").nth(8)).toHaveText(/^0%–0% \[0\.0%, 79\.3%\]$/);
  await expect(cells("llama").nth(6)).toHaveText(ONE_OF_ONE);
  expect(await seriousViolations(page)).toEqual([]);
});
