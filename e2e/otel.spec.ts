import { readFileSync } from "node:fs";
import { accounts } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";
import { seriousViolations } from "./page-checks";
import { evaluationClient } from "../lib/evaluations/client/api-client";

// A run received over OTLP in Chromium (docs/otel.md): its page shows its spans as a waterfall beside
// the open-effects record, the pending write unresolved.
test.use({ storageState: async ({}, use) => use(await storageStateFor("viewer")) });

test("a run sent over OTLP shows its spans as a trace waterfall beside its open-effects record", async ({ page }) => {
  const key = accounts().users.editor.apiKey;
  const name = `otlp run page ${Date.now()}`;
  const { id } = await evaluationClient({ baseUrl: BASE_URL, apiKey: key }).createEvaluation({
    name,
    effectPolicy: { tools: { search_flights: "read_only", book_flight: "async_handle" } },
  });
  const fixture = readFileSync("lib/testing/otlp/genai-trace.json", "utf8").replace("otlp json fixture", id);
  const answer = await fetch(`${BASE_URL}/api/otel/v1/traces`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: fixture,
  });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({});

  await page.goto(`/evaluations/${id}/runs/fixture-run-1`);
  await expect(page.getByTestId("run-finality")).toHaveText("unresolved");
  const spans = page.getByTestId("run-spans");
  await expect(spans.getByRole("row")).toHaveCount(4); // the header and three spans
  await expect(spans.getByRole("rowheader")).toHaveText([
    /invoke_agent travel-agent/,
    /execute_tool search_flights/,
    /execute_tool book_flight/,
  ]);
  await expect(spans).toContainText("2.00 s");
  await expect(page.getByTestId("run-effects")).toContainText("booking-op-42");
  expect(await seriousViolations(page)).toEqual([]);
});
