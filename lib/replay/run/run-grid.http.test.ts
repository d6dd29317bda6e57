import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DelayedWriteClient } from "../../delayed-write/delayed-write-client";
import { freePort } from "../../db/free-port";
import { spawnDelayedWriteService, type ServiceProcess } from "../../delayed-write/spawn";
import { replayConfigSchema } from "../rules/config";
import type { ReplayContext } from "./context";
import { HARNESS_LATE, runGrid, runUnitWithRule } from "./run-grid";
import { implementationChecks } from "../rules/checks";
import { PAPER_TRACE } from "../rules/trace";

const context = (url: string): ReplayContext => ({
  client: new DelayedWriteClient(url),
  serviceUrl: url,
  namespacePrefix: `bl/test-${Date.now()}`,
  trace: PAPER_TRACE,
  scoringMarginMs: 5,
  serviceTimeOrigin: performance.timeOrigin,
  serviceNow: () => performance.now(),
});

describe("environment failures are data", () => {
  it("records a unit whose service is unreachable as environment failures with evidence, after the predeclared retries", async () => {
    const ctx = context(`http://127.0.0.1:${await freePort()}`);
    const result = await runUnitWithRule(
      ctx,
      { test: "separation", trace: 0, condition: "shared", scheduleId: 1, delayMs: 25, repetition: 1 },
      { environmentFailureRetries: 2, harnessLateRetries: 0 },
    );
    expect(result.runs.map((r) => [r.role, r.classification, r.recordedLabel])).toEqual([
      ["A", "environment_failure", "unresolved"],
      ["B", "environment_failure", "unresolved"],
    ]);
    const evidence = result.runs[0]!.evidence;
    expect(evidence.kind).toBe("environment_failure");
    expect(evidence.serviceFailures.map((f) => f.attempt)).toEqual([0, 1, 2]);
    expect(evidence.serviceFailures[0]!.detail).toMatch(/unreachable/);
    await ctx.client.close();
  });
});

describe("a small grid against a real service process", () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await spawnDelayedWriteService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("voids a unit whose harness was late for its own delay, retries it, and records it as an environment failure when every attempt is late", async () => {
    // A client that stalls the endpoint read of the first `lateReads` trials past their 25 ms delay.
    class StallingClient extends DelayedWriteClient {
      constructor(
        url: string,
        private lateReads: number,
      ) {
        super(url);
      }
      override async write(...args: Parameters<DelayedWriteClient["write"]>) {
        const answer = await super.write(...args);
        if (this.lateReads-- > 0) await new Promise((resolve) => setTimeout(resolve, 60));
        return answer;
      }
    }
    const unit = { test: "finality", trace: 0, condition: "snapshot", scheduleId: 1, delayMs: 25, repetition: 1 } as const;
    const ctx = context(service.url);
    const { timeOrigin } = await ctx.client.clock();
    ctx.serviceNow = () => performance.now() + performance.timeOrigin - timeOrigin;

    ctx.client = new StallingClient(service.url, 1);
    const recovered = await runUnitWithRule(ctx, unit, { environmentFailureRetries: 0, harnessLateRetries: 1 });
    const [run] = recovered.runs;
    expect([run!.classification, run!.endpointLabel, run!.terminalLabel]).toEqual(["completed", "failure", "success"]);
    expect(run!.evidence.serviceFailures.map((f) => [f.attempt, f.detail.startsWith(HARNESS_LATE)])).toEqual([[0, true]]);
    expect(run!.namespace).toMatch(/\/retry1$/);
    await ctx.client.close();

    ctx.client = new StallingClient(service.url, 2);
    const voided = await runUnitWithRule(ctx, unit, { environmentFailureRetries: 0, harnessLateRetries: 1 });
    expect(voided.runs.map((r) => [r.classification, r.recordedLabel])).toEqual([["environment_failure", "unresolved"]]);
    expect(voided.runs[0]!.evidence.serviceFailures.map((f) => f.detail)).toEqual([
      expect.stringMatching(/^harness late: .* endpoint read [\d.]+ ms after due$/),
      expect.stringMatching(/^harness late/),
    ]);
    await ctx.client.close();
  });

  it("re-reads a confirmed cancellation after its due time by the service's clock, even when the local estimate of it runs ahead", async () => {
    const ctx = context(service.url);
    const { timeOrigin } = await ctx.client.clock();
    // The estimate 100 ms ahead of the service: waiting by it alone re-read the value ~95 ms before the write was due.
    ctx.serviceNow = () => performance.now() + performance.timeOrigin - timeOrigin + 100;
    const unit = { test: "finality", trace: 0, condition: "verified_cancellation", scheduleId: 1, delayMs: 250, repetition: 1 } as const;
    const { runs } = await runUnitWithRule(ctx, unit, { environmentFailureRetries: 0, harnessLateRetries: 3 });
    const evidence = runs[0]!.evidence;
    if (evidence.kind !== "finality" || !evidence.afterDue) throw new Error(`expected a confirmed cancellation, got ${evidence.kind}`);
    expect(evidence.cancel?.outcome).toBe("cancelled");
    expect(evidence.afterDue.read.readAtMs).toBeGreaterThanOrEqual(evidence.ack.dueAtMs + ctx.scoringMarginMs);
    expect([evidence.afterDue.operation.status, evidence.afterDue.read.entry]).toEqual(["cancelled", null]);
    await ctx.client.close();
  });

  it("passes every check, and the checks fail when evidence is tampered with", async () => {
    const config = replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2, concurrency: 8 });
    const ctx = context(service.url);
    const { timeOrigin } = await ctx.client.clock();
    ctx.serviceNow = () => performance.now() + performance.timeOrigin - timeOrigin;
    const results = await runGrid(ctx, config);
    const checks = implementationChecks(results, config);
    expect(checks.filter((c) => !c.passed)).toEqual([]);

    // A dropped run and a forged exposure must not go unnoticed.
    const tampered = structuredClone(results);
    tampered[0]!.runs.pop();
    const pair = tampered.find((r) => r.unit.condition === "namespaced")!;
    pair.runs.find((r) => r.role === "B")!.exposure = true;
    // and a B initialised after A's write was due (the harness, not the policy, deciding the label)
    // (one that ran: under load a unit can end as an environment failure, which is data, not a pair to tamper with)
    const shared = tampered.find(
      (r) => r.unit.condition === "shared" && r.unit.delayMs > 0 && r.runs.every((run) => run.evidence.kind === "separation"),
    )!;
    const ev = shared.runs.find((r) => r.role === "B")!.evidence;
    if (ev.kind !== "separation" || !ev.bInit.entry || !ev.aAck) throw new Error("expected a shared pair with A's write");
    ev.bInit.entry.writtenAtMs = ev.aAck.dueAtMs + 1;
    const failed = implementationChecks(tampered, config)
      .filter((c) => !c.passed)
      .map((c) => c.name);
    expect(failed).toEqual(
      expect.arrayContaining(["every_run_recorded_once", "exposure_matches_service_timeline", "harness_ahead_of_every_delay"]),
    );
    await ctx.client.close();
  });
});
