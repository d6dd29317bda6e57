// What the hostile corpus writes to, made through the API before it runs, and the check after it
// that every mixed ingest batch stored its good run.
import type { CorpusTargets, HeadersOf, HostileResult } from "./requests";
import { LIVE_SEED, seedRuns } from "./routes";

async function call(origin: string, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * What the corpus writes to, made through the API: an evaluation holding the run `seed` (effect
 * `e1`) and the open live run LIVE_SEED, a small experiment, a protocol, a throwaway viewer account. The experiment it reads, its
 * run and a trace are the instance's own.
 */
export async function prepareCorpusTargets(
  origin: string,
  headersOf: HeadersOf,
  instance: { experimentId: string; runId: string; traceId: string },
): Promise<CorpusTargets> {
  const tag = Date.now().toString(36);
  const { id: evaluationId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/evaluations", {
    name: `hostile corpus ${tag}`,
    effectPolicy: { tools: { "bank.transfer": "async_handle" } },
  })) as { id: string };
  await call(origin, headersOf("editor"), "POST", `/api/v1/evaluations/${evaluationId}/runs`, seedRuns());
  await call(origin, headersOf("editor"), "POST", `/api/v1/evaluations/${evaluationId}/live-runs`, { externalId: LIVE_SEED, taskId: "t1" });
  const { id: protocolId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/protocols", { name: `hostile corpus ${tag}` })) as {
    id: string;
  };
  const { id: userId } = (await call(origin, headersOf("admin"), "POST", "/api/v1/users", {
    email: `throwaway-${tag}@example.test`,
    password: "a throwaway password",
    role: "viewer",
  })) as { id: string };
  const { id: ownExperimentId } = (await call(origin, headersOf("editor"), "POST", "/api/v1/experiments", {
    name: `hostile corpus ${tag}`,
    delaysMs: [0],
    schedules: 1,
    repetitions: 1,
  })) as { id: string };
  return { evaluationId, ownExperimentId, protocolId, userId, effectId: "e1", ...instance };
}

/** The corpus's evaluation's runs by externalId, read through the API page by page. */
async function storedRuns(origin: string, headers: Record<string, string>, evaluationId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = (await call(
      origin,
      headers,
      "GET",
      `/api/v1/evaluations/${evaluationId}/runs?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
    )) as { runs: { externalId: string }[]; nextCursor: string | null };
    for (const run of page.runs) ids.add(run.externalId);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** After the corpus: the mixed batches' good runs not stored, and runs stored that no request meant to store. */
export async function checkGoodRuns(
  origin: string,
  headersOf: HeadersOf,
  evaluationId: string,
  results: readonly HostileResult[],
): Promise<{ missing: string[]; unexpected: string[] }> {
  const stored = await storedRuns(origin, headersOf("viewer"), evaluationId);
  const good = results.flatMap((r) => (r.request.goodRun ? [r.request.goodRun] : []));
  // "bad" is stored when a mutation leaves it valid (an empty list, an item twice); the live run once a score is.
  const expected = new Set(["seed", "bad", LIVE_SEED, ...good]);
  return { missing: good.filter((id) => !stored.has(id)), unexpected: [...stored].filter((id) => !expected.has(id)) };
}
