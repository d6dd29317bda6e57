// A corpus of malformed, hostile and oversize requests to every writing route (and the reading
// routes' queries and paths), generated from one valid body per route by mutating each field in
// turn: text PostgreSQL cannot store, numbers past their column, times it refuses, wrong types,
// unknown and NUL keys; and bodies that are not JSON, mislabelled, too deep or too large (also
// chunked). e2e/hostile-input.spec.ts checks that none answers 5xx and that the good run of every
// mixed ingest batch is stored; `npm run bench:hostile` times the same corpus and measures how long
// each request held the web server's thread. Deterministic: the same targets give the same corpus.
// Here the corpus is assembled; the mutations of a body are in ./mutations.ts, the routes and their
// valid bodies in ./routes.ts, sending in ./requests.ts, the targets and the after-check in ./targets.ts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { AGENTDOJO_RUNS } from "../importer-fixtures";
import { mutations, transportCases } from "./mutations";
import type { CorpusTargets, HostileRequest } from "./requests";
import { BAD_IDS, fullRun, queryCases, readPaths, writeRoutes } from "./routes";

/**
 * The corpus against `targets`. `seedRuns` are what the runner ingests first (the effect and run
 * the resolution and canary routes name). Mixed ingest batches name their good run.
 */
export function hostileCorpus(t: CorpusTargets): HostileRequest[] {
  const corpus: HostileRequest[] = [];
  for (const route of writeRoutes(t)) {
    for (const m of mutations(route.valid))
      corpus.push({
        name: `${route.method} ${route.path} body.${m.field} ${m.what}`,
        method: route.method,
        path: route.path,
        as: route.as,
        body: JSON.stringify(m.body),
      });
    corpus.push(...transportCases(route.method, route.path, route.as, JSON.stringify(route.valid)));
  }
  // Ingest: every mutation of a full run, sent beside a good run that must be stored.
  const ingestPath = `/api/v1/evaluations/${t.evaluationId}/runs`;
  let good = 0;
  for (const m of mutations(fullRun("bad"))) {
    const goodRun = `good-${++good}`;
    corpus.push({
      name: `POST ${ingestPath} runs.0.${m.field} ${m.what}`,
      method: "POST",
      path: ingestPath,
      as: "editor",
      body: JSON.stringify({ runs: [m.body, fullRun(goodRun)] }),
      goodRun,
    });
  }
  corpus.push(...transportCases("POST", ingestPath, "editor", JSON.stringify({ runs: [fullRun("bad")] })));
  // The pattern that froze the server, against an effect whose tool is 10,000 `a`s, then its policy.
  const frozen = `good-${++good}`;
  corpus.push({
    name: `POST ${ingestPath} a tool of 10,000 a's`,
    method: "POST",
    path: ingestPath,
    as: "editor",
    body: JSON.stringify({
      runs: [
        {
          ...(fullRun(frozen) as object),
          effects: [{ ...((fullRun(frozen) as { effects: object[] }).effects[0] as object), tool: "a".repeat(200) }],
        },
      ],
    }),
    goodRun: frozen,
  });
  for (const stars of [5, 16, 17]) {
    corpus.push({
      name: `PUT effect-policy ${"*a".repeat(stars)}*b`,
      method: "PUT",
      path: `/api/v1/evaluations/${t.evaluationId}/effect-policy`,
      as: "editor",
      body: JSON.stringify({ tools: { [`${"*a".repeat(stars)}*b`]: "external" } }),
    });
  }
  // Paths.
  for (const template of readPaths(t))
    for (const [id, what] of BAD_IDS)
      corpus.push({ name: `GET ${template} id ${what}`, method: "GET", path: template.replace("ID", id), as: "viewer" });
  corpus.push(...queryCases(t));
  // The import route: a body that is no log, and one streamed past nothing in particular.
  corpus.push({
    name: "POST /api/v1/imports a file name with NUL",
    method: "POST",
    path: "/api/v1/imports?file=a%00b.json",
    as: "editor",
    body: "{}",
  });
  corpus.push({
    name: "POST /api/v1/imports an evaluation name with a lone surrogate",
    method: "POST",
    path: "/api/v1/imports?file=a.json&evaluation=x%ED%A0%80",
    as: "editor",
    body: "{}",
  });
  corpus.push({
    name: "POST /api/v1/imports not a log",
    method: "POST",
    path: "/api/v1/imports?file=a.json",
    as: "editor",
    body: "not a log",
    contentType: "application/octet-stream",
  });
  corpus.push({
    name: "POST /api/v1/imports 12 MB chunked",
    method: "POST",
    path: "/api/v1/imports?file=a.json",
    as: "editor",
    body: { chunks: 12, chunkBytes: 1024 * 1024 },
    contentType: "application/octet-stream",
  });
  corpus.push({
    name: "POST /api/v1/imports a valid 15 MB AgentDojo log",
    method: "POST",
    path: "/api/v1/imports?file=large.json&evaluation=hostile%20corpus%20large%20log",
    as: "editor",
    body: largeAgentDojoLog(),
    contentType: "application/octet-stream",
  });
  return corpus;
}

/** A real AgentDojo log (the first fixture) whose first message is padded to 15 MB: a large log that is not hostile at all. */
function largeAgentDojoLog(): Uint8Array {
  const file = readdirSync(AGENTDOJO_RUNS)
    .filter((name) => name.endsWith(".json"))
    .sort()[0]!;
  const log = JSON.parse(readFileSync(path.join(AGENTDOJO_RUNS, file), "utf8")) as { messages: { content: unknown }[] };
  log.messages[0]!.content = `${String(log.messages[0]!.content)} ${"padding ".repeat((15 * 1024 * 1024) / 8)}`;
  return new Uint8Array(Buffer.from(JSON.stringify(log)));
}
