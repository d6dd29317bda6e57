import { readFileSync } from "node:fs";
import { hostileCorpus } from "../lib/testing/hostile-corpus/corpus";
import { sendHostile, type Caller, type HostileResult } from "../lib/testing/hostile-corpus/requests";
import { checkGoodRuns, prepareCorpusTargets } from "../lib/testing/hostile-corpus/targets";
import { accounts, bearer } from "./accounts";
import { BASE_URL, expect, storageStateFor, test } from "./fixtures";

// Hostile input (docs/accounts.md, Hardening): a corpus of malformed, hostile and oversize requests (lib/testing/hostile-corpus/corpus.ts)
// against the built app. None may answer 5xx or drop the connection, and the good run of every
// mixed ingest batch must be stored whatever its bad neighbour holds.
test("no hostile request answers 5xx, and every mixed batch stores its good run", async () => {
  test.setTimeout(900_000);
  const cookies: Partial<Record<Caller, string>> = {};
  for (const role of ["viewer", "reviewer", "editor", "admin"] as const) {
    const state = JSON.parse(readFileSync(await storageStateFor(role), "utf8")) as { cookies: { name: string; value: string }[] };
    cookies[role] = state.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  }
  // An API key and the session: the API reads the key, pages the session. The corpus is a client of
  // its own (the stack trusts loopback's X-Forwarded-For): its failed share lookups spend its own budget, not the other specs'.
  const client = { "x-forwarded-for": "198.51.100.28" };
  const headersOf = (as: Caller): Record<string, string> =>
    as === "anonymous" ? client : { ...client, ...bearer(accounts().users[as].apiKey), cookie: cookies[as]! };
  const targets = await prepareCorpusTargets(BASE_URL, headersOf, accounts());
  const corpus = hostileCorpus(targets);
  expect(corpus.length).toBeGreaterThan(1_500);

  const results: HostileResult[] = [];
  for (const request of corpus) results.push(await sendHostile(BASE_URL, request, headersOf));
  const broken = results.filter((r) => r.status >= 500 || r.status === 0).map((r) => `${r.status} ${r.request.name}`);
  expect(broken).toEqual([]);
  // Most of the corpus is refused with a 4xx: a corpus that stopped reaching the routes' checks (all 401s, say) would not be.
  expect(results.filter((r) => r.status === 400 || r.status === 404 || r.status === 413 || r.status === 415).length).toBeGreaterThan(
    corpus.length / 2,
  );
  expect(results.filter((r) => r.status === 401 || r.status === 403).length).toBeLessThan(corpus.length / 20);

  expect(await checkGoodRuns(BASE_URL, headersOf, targets.evaluationId, results)).toEqual({ missing: [], unexpected: [] });
  // The instance still answers, quickly, after all of it.
  const health = await fetch(`${BASE_URL}/api/health`);
  expect(health.status).toBe(200);
});
