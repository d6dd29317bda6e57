// bench:ingest's pages a reader opens from the runs list, as HTML: a search, two runs of one task side by side, and a
// frozen share link's runs list searched (a reviewer with only the link), each checked for what it must show.
import type { Pool } from "undici";
import { syntheticCustomer } from "../testing/synthetic-evaluation-runs";
import { measureGets } from "./bench-web";

export interface ReadingPageFigures {
  path: string;
  what: string;
  p50Ms: number;
  p95Ms: number;
}

/** Runs `run-{middle}` and `run-{middle + 2,000}` are of one task (synthetic runs cycle through 2,000 tasks). */
export async function measureReadingPages(options: {
  origin: string;
  pool: Pool;
  apiKey: string;
  evaluationId: string;
  middle: number;
  requests: number;
  log: (line: string) => void;
}): Promise<ReadingPageFigures[]> {
  const { origin, pool, apiKey, evaluationId, middle } = options;
  const shared = await fetch(`${origin}/api/v1/share-links`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ resourceType: "evaluation", resourceId: evaluationId }),
  });
  if (shared.status !== 201) throw new Error(`POST /api/v1/share-links answered ${shared.status}`);
  const sharedPath = new URL(((await shared.json()) as { url: string }).url).pathname;
  // Each with the texts its page must show: the runs it found, or both runs compared.
  const pages: [string, string, string[]][] = [
    [
      "the runs page, searched",
      `/evaluations/${evaluationId}/runs?q=${encodeURIComponent(syntheticCustomer(middle))}`,
      ["evaluation-run-link"],
    ],
    [
      "two runs of one task side by side",
      `/evaluations/${evaluationId}/compare-runs?a=run-${middle}&b=run-${middle + 2_000}`,
      [`run-${middle}`, `run-${middle + 2_000}`, "Transcripts by turn"],
    ],
    ["a frozen share link's runs, searched", `${sharedPath}/runs?q=reconcile`, ["evaluation-run-link"]],
  ];
  const figures: ReadingPageFigures[] = [];
  for (const [what, path, shows] of pages) {
    const check = (body: Buffer) => {
      const missing = shows.filter((text) => !body.toString("utf8").includes(text));
      if (missing.length > 0) throw new Error(`GET ${path} does not show ${missing.join(", ")}`);
    };
    const measured = await measureGets(pool, path, { apiKey, warmup: 2, requests: options.requests, check });
    figures.push({ path, what, p50Ms: measured.p50Ms, p95Ms: measured.p95Ms });
    options.log(`page ${path} (${what}): p50 ${measured.p50Ms} ms, p95 ${measured.p95Ms} ms`);
  }
  return figures;
}
