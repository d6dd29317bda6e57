// The five ways into Boundary Lab of the five-way test (app/api/v1/evaluations/five-ways.db.test.ts),
// each a driver that sends the scenario's runs (./scenario.ts) into one evaluation in its own words:
// the ingest API, the live-run routes, the Python client, the MCP recorder, and OTLP.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { context, trace, type Context, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { expect } from "vitest";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";
import type { EvaluationRunListItem } from "@/lib/evaluations/read/read-boundary";
import type { RunRecord } from "@/lib/evaluations/run-record-schema";
import { SCENARIO, evidenceOf, iso, timesOf, type ScenarioRun } from "./scenario";
import { until } from "../until";

const run = promisify(execFile);
const PYTHON = "/usr/bin/python3";

/** The instance the drivers send to: its origin, an editor's API key and the typed client on it. */
export interface FiveWaysInstance {
  origin: string;
  key: string;
  lab: EvaluationClient;
}

/** The evaluation's runs as the runs list answers them (one page of 100). */
export async function runsOf(instance: FiveWaysInstance, id: string): Promise<EvaluationRunListItem[]> {
  const response = await fetch(`${instance.origin}/api/v1/evaluations/${id}/runs?limit=100`, {
    headers: { authorization: `Bearer ${instance.key}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { runs: EvaluationRunListItem[] }).runs;
}

/** Each way's driver: sends every run of the scenario into the evaluation `id`. */
export function waysIn(instance: FiveWaysInstance) {
  const api = { origin: instance.origin };
  const { key, lab } = instance;

  /** What the scenario's end says to the live-run score route (at `at` when the sender keeps its own times). */
  const scoreBody = (end: ScenarioRun["end"], at?: number) =>
    "unscoredReason" in end ? { unscoredReason: end.unscoredReason } : { ...end, ...(at !== undefined && { at: iso(at) }) };

  const handleOf = (scenarioRun: ScenarioRun, call: number) => `task-${scenarioRun.externalId}-${call}`;

  // ---- 1. the ingest API: run records, and the resolutions route for evidence that came after scoring

  function ingestRecord(scenarioRun: ScenarioRun, index: number): RunRecord {
    const times = timesOf(index);
    const { end } = scenarioRun;
    return {
      externalId: scenarioRun.externalId,
      taskId: scenarioRun.taskId,
      startedAt: iso(times.startMs),
      ...("unscoredReason" in end ? end : { ...end, scoredAt: iso(times.scoredMs) }),
      toolCalls: scenarioRun.calls.map((call, j) => ({
        callId: String(j),
        tool: call.tool,
        at: iso(times.callMs(j)),
        arguments: call.arguments,
      })),
      effects: scenarioRun.calls.map((call, j) => ({
        effectId: `e${j}`,
        tool: call.tool,
        callId: String(j),
        arguments: call.arguments,
        requestedAt: iso(times.callMs(j)),
        acknowledgedAt: iso(times.callMs(j)),
        ...(call.answer === "returns"
          ? { statusAtScoring: "completed" as const }
          : call.answer === "settles_before_scoring"
            ? {
                handle: handleOf(scenarioRun, j),
                statusAtScoring: "completed" as const,
                resolution: {
                  status: "completed" as const,
                  at: iso(times.settledBeforeMs(j)),
                  evidence: evidenceOf(handleOf(scenarioRun, j)),
                  verifiedBy: "reconciler",
                },
              }
            : { handle: handleOf(scenarioRun, j), statusAtScoring: "pending" as const }),
      })),
      resets: (scenarioRun.verifiedResets ?? []).map((surface) => ({
        surface,
        at: iso(times.resetMs),
        verified: true,
        evidence: "read back empty",
      })),
    };
  }

  async function throughIngestApi(id: string) {
    const { results } = await lab.ingestRuns(id, SCENARIO.map(ingestRecord));
    expect(results.map((r) => r.status)).toEqual(SCENARIO.map(() => "created"));
    for (const [index, scenarioRun] of SCENARIO.entries())
      for (const [j, call] of scenarioRun.calls.entries())
        if (call.answer === "settles_after_scoring")
          await lab.appendResolution(id, `e${j}`, {
            runExternalId: scenarioRun.externalId,
            status: "completed",
            at: iso(timesOf(index).settledAfterMs),
            evidence: evidenceOf(handleOf(scenarioRun, j)),
            verifiedBy: "reconciler",
          });
  }

  // ---- 2. the live-run routes: open, events at the harness's times, score, then later evidence

  async function throughLiveRunRoutes(id: string) {
    for (const [index, scenarioRun] of SCENARIO.entries()) {
      const times = timesOf(index);
      const { externalId } = scenarioRun;
      await lab.openLiveRun(id, { externalId, taskId: scenarioRun.taskId, startedAt: iso(times.startMs) });
      const events: Record<string, unknown>[] = (scenarioRun.verifiedResets ?? []).map((surface, k) => ({
        eventId: `reset-${k}`,
        type: "reset",
        at: iso(times.resetMs),
        surface,
        verified: true,
        evidence: "read back empty",
      }));
      const late: Record<string, unknown>[] = [];
      for (const [j, call] of scenarioRun.calls.entries()) {
        const at = iso(times.callMs(j));
        const handle = handleOf(scenarioRun, j);
        events.push(
          {
            eventId: `${j}-requested`,
            type: "effect_requested",
            at,
            effectId: `e${j}`,
            tool: call.tool,
            callId: String(j),
            arguments: call.arguments,
          },
          call.answer === "returns"
            ? { eventId: `${j}-returned`, type: "effect_status", at, effectId: `e${j}`, status: "completed" }
            : { eventId: `${j}-acknowledged`, type: "effect_status", at, effectId: `e${j}`, status: "pending", handle },
        );
        const settled = {
          type: "effect_status",
          effectId: `e${j}`,
          status: "completed",
          evidence: evidenceOf(handle),
          source: "reconciler",
        };
        if (call.answer === "settles_before_scoring")
          events.push({ eventId: `${j}-settled`, at: iso(times.settledBeforeMs(j)), ...settled });
        if (call.answer === "settles_after_scoring") late.push({ eventId: `${j}-settled`, at: iso(times.settledAfterMs), ...settled });
      }
      expect((await lab.sendLiveEvents(id, externalId, events)).errors).toEqual([]);
      await lab.scoreLiveRun(id, externalId, scoreBody(scenarioRun.end, times.scoredMs));
      if (late.length > 0) expect((await lab.sendLiveEvents(id, externalId, late)).errors).toEqual([]);
    }
  }

  // ---- 3. the Python client (standard library only), at its own clock

  async function throughPythonClient(id: string) {
    const child = run(PYTHON, [path.resolve("lib/testing/five-ways/python_scenario.py")], {
      env: { ...process.env, PYTHONPATH: path.resolve("clients/python") },
    });
    child.child.stdin!.end(JSON.stringify({ origin: api.origin, apiKey: key, evaluation: id, runs: SCENARIO }));
    const { stdout } = await child.catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the Python scenario failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    expect(stdout.trim().split("\n")).toHaveLength(SCENARIO.length);
  }

  // ---- 4. the MCP recorder in front of the ledger server, an agent on the MCP SDK's client

  interface RecordedEffect {
    tool: string;
    handle?: string;
    acknowledgedAt?: string;
    resolution?: { status: string };
  }

  /** A live run's effects as its events make them now (none before the recorder has opened it). */
  async function recordedEffects(id: string, externalId: string): Promise<RecordedEffect[]> {
    const response = await fetch(`${api.origin}/api/v1/evaluations/${id}/live-runs/${externalId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.status !== 200) return [];
    return ((await response.json()) as { record: { effects: RecordedEffect[] } }).record.effects;
  }

  async function agentThroughRecorder(id: string, scenarioRun: ScenarioRun, ledgerFile: string, spool: string): Promise<Client> {
    const node = (script: string) => ["--import", "tsx", path.resolve(script)];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...node("workers/mcp-record.ts"),
        ...["--evaluation", id, "--run", scenarioRun.externalId, "--task", scenarioRun.taskId, "--api", api.origin, "--spool", spool],
        ...["--poll-bound-seconds", "20", "--"],
        process.execPath,
        ...node("lib/testing/five-ways/ledger-server.ts"),
      ],
      env: { ...getDefaultEnvironment(), BOUNDARY_LAB_API_KEY: key, LEDGER_FILE: ledgerFile },
      stderr: "inherit",
    });
    const agent = new Client({ name: "five-way agent", version: "1.0.0" });
    await agent.connect(transport);
    return agent;
  }

  /**
   * Each run an agent through its own recorder. What the recorder cannot know the harness says on the
   * live-run routes, the recorder's companion: the verified resets (sent before the agent starts),
   * the score with its terminal label, and a run left unscored.
   */
  async function throughMcpRecorder(id: string) {
    const folder = mkdtempSync(path.join(tmpdir(), "bl-five-ways-"));
    const ledgerFile = path.join(folder, "ledger.json");
    for (const scenarioRun of SCENARIO) {
      const { externalId } = scenarioRun;
      if (scenarioRun.verifiedResets) {
        await lab.openLiveRun(id, { externalId, taskId: scenarioRun.taskId });
        const at = new Date().toISOString();
        const resets = scenarioRun.verifiedResets.map((surface, k) => ({
          eventId: `harness-reset-${k}`,
          type: "reset",
          at,
          surface,
          verified: true,
        }));
        expect((await lab.sendLiveEvents(id, externalId, resets)).errors).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const agent = await agentThroughRecorder(id, scenarioRun, ledgerFile, folder);
      for (const [j, call] of scenarioRun.calls.entries()) {
        if (call.answer === "returns") {
          const answer = await agent.callTool({ name: call.tool, arguments: call.arguments });
          // The ledger is shared: r02 reads what r01 deposited.
          if (externalId === "r02-read-carol") expect(answer.content).toEqual([{ type: "text", text: "105" }]);
        } else {
          const stream = agent.experimental.tasks.callToolStream({ name: call.tool, arguments: call.arguments }, CallToolResultSchema, {
            task: { ttl: 3_600_000 },
          });
          expect((await stream.next()).value).toMatchObject({ type: "taskCreated", task: { status: "working" } });
          await stream.return(undefined);
          // The task's acknowledgement (its id as the handle) has reached Boundary Lab; settling before scoring, its evidence too.
          await until(
            `${externalId}: call ${j} acknowledged with its task${call.answer === "settles_before_scoring" ? " and its completion read" : ""}`,
            () => recordedEffects(id, externalId),
            (effects) =>
              effects[j]?.handle !== undefined &&
              (call.answer !== "settles_before_scoring" || effects[j]?.resolution?.status === "completed"),
          );
        }
      }
      await until(
        `${externalId}: every call's answer recorded`,
        () => recordedEffects(id, externalId),
        (effects) => effects.length === scenarioRun.calls.length && effects.every((e) => e.acknowledgedAt !== undefined),
      );
      await lab.scoreLiveRun(id, externalId, scoreBody(scenarioRun.end));
      // A transfer that settles after scoring is applied now, once the run is scored.
      if (scenarioRun.calls.some((call) => call.answer === "settles_after_scoring")) writeFileSync(`${ledgerFile}.release`, "");
      await agent.close();
    }
    // The recorder follows the transfer left working after its run was scored, until it completes.
    await until(
      "r06-late resolved after scoring",
      () => runsOf(instance, id),
      (runs) => runs.find((r) => r.externalId === "r06-late")?.unresolvedReason === "resolved_after_scoring",
    );
  }

  // ---- 5. OTLP through OpenTelemetry's exporters: spans at the harness's times

  function tracerProvider(exporter: SpanExporter, evaluationId: string) {
    return new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": "ledger-agents", "boundary_lab.evaluation": evaluationId }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
  }

  const settledEvent = (scenarioRun: ScenarioRun, j: number) => ({
    "boundary_lab.effect.id": `${scenarioRun.externalId}-${j}`,
    "boundary_lab.effect.status": "completed",
    "boundary_lab.evidence": evidenceOf(handleOf(scenarioRun, j)),
  });

  /**
   * One trace per run: the agent span (resets as its events, the score as its gen_ai.evaluation.result
   * event), a tool span per call (a task's acknowledged `pending` with its handle), a check span with the
   * evidence read before scoring, and after the score a later span of the same trace with the evidence
   * that came late. A terminal label and a run left unscored go to the live-run score route, the trace's companion.
   */
  async function throughOtlp(id: string, encoding: "protobuf" | "json") {
    const exporterOptions = { url: `${api.origin}/api/otel/v1/traces`, headers: { authorization: `Bearer ${key}` } };
    const provider = tracerProvider(
      encoding === "protobuf" ? new ProtobufExporter(exporterOptions) : new JsonExporter(exporterOptions),
      id,
    );
    const tracer: Tracer = provider.getTracer("ledger-agent");
    for (const [index, scenarioRun] of SCENARIO.entries()) {
      const times = timesOf(index);
      const byRoute = "unscoredReason" in scenarioRun.end || scenarioRun.end.terminalLabel !== undefined;
      const root = tracer.startSpan(
        "invoke_agent ledger",
        {
          startTime: new Date(times.startMs),
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "boundary_lab.run.id": scenarioRun.externalId,
            "boundary_lab.task.id": scenarioRun.taskId,
          },
        },
        context.active(),
      );
      const inRun: Context = trace.setSpan(context.active(), root);
      for (const surface of scenarioRun.verifiedResets ?? [])
        root.addEvent(
          "boundary_lab.reset",
          { "boundary_lab.surface": surface, "boundary_lab.verified": true, "boundary_lab.evidence": "read back empty" },
          new Date(times.resetMs),
        );
      for (const [j, call] of scenarioRun.calls.entries()) {
        const at = new Date(times.callMs(j));
        const span = tracer.startSpan(
          `execute_tool ${call.tool}`,
          {
            startTime: at,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": call.tool,
              "gen_ai.tool.call.id": `${scenarioRun.externalId}-${j}`,
              "gen_ai.tool.call.arguments": JSON.stringify(call.arguments),
              ...(call.answer !== "returns" && {
                "boundary_lab.effect.status": "pending",
                "boundary_lab.effect.handle": handleOf(scenarioRun, j),
              }),
            },
          },
          inRun,
        );
        span.end(at);
        if (call.answer === "settles_before_scoring") {
          // Exported as each span ends, concurrently: the evidence may reach the receiver before its tool span (it is held until then).
          const check = tracer.startSpan("check transfer", { startTime: new Date(times.settledBeforeMs(j)) }, inRun);
          check.addEvent("boundary_lab.effect.status", settledEvent(scenarioRun, j), new Date(times.settledBeforeMs(j)));
          check.end(new Date(times.settledBeforeMs(j)));
        }
      }
      if (!byRoute) {
        const { endpointLabel } = scenarioRun.end as { endpointLabel: string };
        root.addEvent(
          "gen_ai.evaluation.result",
          { "gen_ai.evaluation.name": "ledger", "gen_ai.evaluation.score.label": endpointLabel },
          new Date(times.scoredMs),
        );
      }
      root.end(new Date(times.scoredMs));
      await provider.forceFlush();
      if (byRoute) await lab.scoreLiveRun(id, scenarioRun.externalId, scoreBody(scenarioRun.end, times.scoredMs));
      for (const [j, call] of scenarioRun.calls.entries())
        if (call.answer === "settles_after_scoring") {
          const check = tracer.startSpan("check transfer", { startTime: new Date(times.settledAfterMs) }, inRun);
          check.addEvent("boundary_lab.effect.status", settledEvent(scenarioRun, j), new Date(times.settledAfterMs));
          check.end(new Date(times.settledAfterMs));
          await provider.forceFlush();
        }
    }
    await provider.shutdown();
  }

  return { throughIngestApi, throughLiveRunRoutes, throughPythonClient, throughMcpRecorder, throughOtlp };
}
