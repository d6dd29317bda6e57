import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/client/api-client";
import type { TestDatabase } from "@/lib/testing/database";
import { FIVE_WAY_POLICY, SCENARIO } from "@/lib/testing/five-ways/scenario";
import { runsOf, waysIn } from "@/lib/testing/five-ways/ways-in";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";

// The same runs, five ways in, the same figures. One scripted scenario (lib/testing/five-ways/scenario.ts:
// 12 runs with every unresolved reason, a shared surface without a reset, a verified reset, evidence
// before and after scoring, an unscored run and a disagreement) goes into one evaluation per way, all
// under one policy, over real HTTP into the route handlers on a real PostgreSQL: the ingest API (with
// the resolutions route for the evidence that came after scoring), the live-run routes, the Python
// client, the MCP recorder in front of an MCP server whose tools share a ledger, and OTLP through
// OpenTelemetry's own exporters, protobuf and JSON as two evaluations. The summary, the statistics
// and every run's finality, reason, basis, disagreement, unit (as a partition of the runs) and
// exposure must be the same in all six. Ids, handles and times are each way's own; each way's driver
// is lib/testing/five-ways/ways-in.ts's.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };
let lab: EvaluationClient;

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "five ways"));
  const [evaluations, summary, statistics, runs, resolutions, suggestions, open, read, events, score, recorders, otlp] = await Promise.all([
    import("./route"),
    import("./[id]/summary/route"),
    import("./[id]/statistics/route"),
    import("./[id]/runs/route"),
    import("./[id]/effects/[effectId]/resolutions/route"),
    import("./[id]/tool-suggestions/route"),
    import("./[id]/live-runs/route"),
    import("./[id]/live-runs/[externalId]/route"),
    import("./[id]/live-runs/[externalId]/events/route"),
    import("./[id]/live-runs/[externalId]/score/route"),
    import("./[id]/live-runs/[externalId]/recorders/[recorderId]/route"),
    import("@/app/api/otel/v1/traces/route"),
  ]);
  const evaluation = String.raw`^\/api\/v1\/evaluations\/(?<id>[^/]+)`;
  const liveRun = String.raw`${evaluation}\/live-runs\/(?<externalId>[^/]+)`;
  api = await serveRoutes([
    { path: /^\/api\/otel\/v1\/traces$/, methods: { POST: otlp.POST } },
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    { path: new RegExp(`${evaluation}/summary$`), methods: { GET: summary.GET } },
    { path: new RegExp(`${evaluation}/statistics$`), methods: { GET: statistics.GET } },
    { path: new RegExp(`${evaluation}/runs$`), methods: { GET: runs.GET, POST: runs.POST } },
    { path: new RegExp(`${evaluation}/effects/(?<effectId>[^/]+)/resolutions$`), methods: { POST: resolutions.POST } },
    { path: new RegExp(`${evaluation}/tool-suggestions$`), methods: { GET: suggestions.GET, POST: suggestions.POST } },
    { path: new RegExp(`${evaluation}/live-runs$`), methods: { POST: open.POST } },
    { path: new RegExp(`${liveRun}$`), methods: { GET: read.GET } },
    { path: new RegExp(`${liveRun}/events$`), methods: { POST: events.POST } },
    { path: new RegExp(`${liveRun}/score$`), methods: { POST: score.POST } },
    { path: new RegExp(`${liveRun}/recorders/(?<recorderId>[^/]+)$`), methods: { PUT: recorders.PUT } },
  ]);
  lab = evaluationClient({ baseUrl: api.origin, apiKey: key });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await database?.drop();
});

const createEvaluation = async (way: string) =>
  (await lab.createEvaluation({ name: `five ways: ${way}`, effectPolicy: FIVE_WAY_POLICY })).id;

// ---- the figures

/** Everything the audit says of the evaluation, with only what must differ between ways left out: ids and times. */
async function figuresOf(id: string) {
  const { evaluationId: summaryId, ...summary } = await lab.summary(id);
  const { evaluationId: statisticsId, ...answered } = await lab.statistics(id);
  expect([summaryId, statisticsId]).toEqual([id, id]);
  // The exclusion rule is each evaluation's own default, declared when it was created: the same rule, another instant.
  const declaredAt = answered.exclusionRule.declared.at;
  const statistics = JSON.parse(JSON.stringify(answered).replaceAll(declaredAt, "(when the evaluation was created)")) as typeof answered;
  const runs = await runsOf({ origin: api.origin, key, lab }, id);
  const byUnit = new Map<string, string[]>();
  for (const r of runs) if (r.analysisUnit !== null) byUnit.set(r.analysisUnit, [...(byUnit.get(r.analysisUnit) ?? []), r.externalId]);
  return {
    summary,
    statistics,
    runs: Object.fromEntries(
      runs
        .map((r) => [
          r.externalId,
          {
            finality: r.finality,
            reason: r.unresolvedReason ?? r.unscoredReason,
            tool: r.unresolvedTool,
            basis: r.finalityBasis,
            endpointLabel: r.endpointLabel,
            terminalLabel: r.terminalLabel,
            disagreement: r.disagreement,
            inheritedState: r.inheritedState,
          },
        ])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ),
    /** The analysis units as a partition of the runs' external ids (a unit's id is its smallest run id, which each way draws its own). */
    units: [...byUnit.values()].map((unit) => unit.sort()).sort((a, b) => a[0]!.localeCompare(b[0]!)),
  };
}

/** What the scenario's runs must come out as, worked by hand from the rules (docs/evaluations.md). */
const EXPECTED_RUNS = {
  "r01-deposit-carol": { finality: "final", reason: null, basis: "policy_class", inheritedState: "none" },
  "r02-read-carol": { finality: "final", reason: null, basis: "policy_class", inheritedState: "internal" },
  "r03-deposit-dave": { finality: "final", reason: null, basis: "policy_class", inheritedState: "none" },
  "r04-reset-read-dave": { finality: "final", reason: null, basis: "policy_class", inheritedState: "none" },
  "r05-pending": { finality: "unresolved", reason: "pending_at_scoring", tool: "transfer", inheritedState: "none" },
  "r06-late": { finality: "unresolved", reason: "resolved_after_scoring", tool: "transfer", inheritedState: "none" },
  "r07-never-resolved": { finality: "unresolved", reason: "never_resolved", tool: "notify", inheritedState: "none" },
  "r08-unverifiable": { finality: "unresolved", reason: "unverifiable", tool: "queue_job", inheritedState: "none" },
  "r09-unclassified": { finality: "unresolved", reason: "unclassified_tool", tool: "audit_log", inheritedState: "none" },
  "r10-evidence": { finality: "final", reason: null, basis: "recorded_evidence", inheritedState: "none" },
  "r11-unscored": { finality: "unscored", reason: "the scorer crashed", basis: null, inheritedState: "none" },
  "r12-disagreement": { finality: "final", reason: null, basis: "policy_class", disagreement: true, terminalLabel: "failure" },
};

describe("one scenario, every way in", () => {
  it("gives the same summary, statistics and per-run finality, reason, unit and exposure through the ingest API, the live-run routes, the Python client, the MCP recorder and OTLP (protobuf and JSON)", async () => {
    const { throughIngestApi, throughLiveRunRoutes, throughPythonClient, throughMcpRecorder, throughOtlp } = waysIn({
      origin: api.origin,
      key,
      lab,
    });
    const ways: [string, (id: string) => Promise<void>][] = [
      ["ingest API", throughIngestApi],
      ["live-run routes", throughLiveRunRoutes],
      ["Python client", throughPythonClient],
      ["MCP recorder", throughMcpRecorder],
      ["OTLP protobuf", (id) => throughOtlp(id, "protobuf")],
      ["OTLP JSON", (id) => throughOtlp(id, "json")],
    ];
    const figures: Record<string, Awaited<ReturnType<typeof figuresOf>>> = {};
    for (const [way, send] of ways) {
      const id = await createEvaluation(way);
      await send(id);
      figures[way] = await figuresOf(id);
    }
    const reference = figures["ingest API"]!;
    // The reference is what the rules say by hand, not merely what the ways agree on.
    expect(reference.runs).toMatchObject(EXPECTED_RUNS);
    expect(reference.units).toEqual([
      ["r01-deposit-carol", "r02-read-carol"],
      ...SCENARIO.map((r) => [r.externalId]).filter(
        ([externalId]) => externalId !== "r01-deposit-carol" && externalId !== "r02-read-carol",
      ),
    ]);
    expect(reference.summary).toMatchObject({
      runs: 12,
      unscored: 1,
      reported: { successes: 9, n: 11 },
      final: { successes: 5, n: 6 },
      unresolved: {
        n: 5,
        byReason: { pending_at_scoring: 1, resolved_after_scoring: 1, never_resolved: 1, unverifiable: 1, unclassified_tool: 1 },
      },
      disagreements: { n: 1, of: 1 },
      units: { analysisUnits: 11, largest: 2 },
      exposures: { n: 1, of: 12 },
      finalBasis: { policy_class: 5, recorded_evidence: 1 },
    });
    for (const [way, seen] of Object.entries(figures)) expect.soft({ way, ...seen }).toEqual({ way, ...reference });
  }, 240_000);
});
