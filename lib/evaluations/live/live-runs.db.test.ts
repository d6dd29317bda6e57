import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { DomainError } from "../../errors";
import { useTestDatabase } from "../../testing/use-test-database";
import { at, SURFACE, WORKED_POLICY, workedExample } from "../../testing/evaluation-example";
import { createEvaluation } from "../manage/create-evaluation";
import { getEvaluationRun } from "../read/evaluation-run";
import { ingestRuns } from "../ingest/ingest-runs";
import { evaluationSummary } from "../read/summary";
import { expireLiveRun } from "./expire-live-runs";
import { getLiveRun, openLiveRuns } from "../read/live-runs";
import { openLiveRun } from "./open-live-run";
import { recordLiveEvents } from "./record-live-events";
import { scoreLiveRun } from "./score-live-run";
import { liveRunRecorders, recorderFlags, recorderHeartbeat, SCORE_WAITS_FOR_RECORDERS_MS } from "./recorders";

// Live runs on a real PostgreSQL: recorded as they happen, they are audited exactly as the same
// runs ingested after the fact; later evidence, timeouts and refusals as docs/recording.md states them.
let db: Db;
useTestDatabase((database) => (db = database.db));

let evaluations = 0;
const newEvaluation = (extra: { liveRunTimeoutSeconds?: number } = {}) =>
  createEvaluation(db, { name: `live ${++evaluations}`, effectPolicy: WORKED_POLICY, ...extra }, null);

/** The worked example's runs as live events: each effect's first status at its request, its resolution as a terminal status. */
async function recordWorkedExampleLive(evaluationId: string) {
  for (const run of workedExample()) {
    await openLiveRun(db, evaluationId, { externalId: run.externalId, taskId: run.taskId, startedAt: run.startedAt });
    const events: object[] = [];
    for (const effect of run.effects ?? []) {
      const { effectId, tool, handle, surface, requestedAt } = effect;
      events.push({ eventId: `${effectId}-req`, type: "effect_requested", at: requestedAt, effectId, tool, handle, surface });
      events.push({ eventId: `${effectId}-ack`, type: "effect_status", at: requestedAt, effectId, status: "pending" });
      const resolution = (effect as { resolution?: { status: string; at: string; evidence: unknown } }).resolution;
      if (resolution)
        events.push({
          eventId: `${effectId}-end`,
          type: "effect_status",
          at: resolution.at,
          effectId,
          status: resolution.status,
          evidence: resolution.evidence,
        });
    }
    (run.touches ?? []).forEach((touch, i) => events.push({ eventId: `touch-${i}`, type: "touch", ...touch }));
    if (events.length > 0) expect((await recordLiveEvents(db, evaluationId, run.externalId, events)).errors).toEqual([]);
    const terminalLabel = (run as { terminalLabel?: "success" | "failure" }).terminalLabel;
    await scoreLiveRun(db, evaluationId, run.externalId, {
      endpointLabel: "success",
      at: run.scoredAt,
      ...(terminalLabel && { terminalLabel }),
    });
  }
}

const figures = async (evaluationId: string) => {
  const { evaluationId: _, ...summary } = await evaluationSummary(db, evaluationId);
  return summary;
};

describe("live runs", () => {
  it("are audited exactly as the same runs ingested: same finality, disagreements, units and exposure", async () => {
    const [live, ingested] = [await newEvaluation(), await newEvaluation()];
    await recordWorkedExampleLive(live);
    await ingestRuns(db, ingested, workedExample());
    expect(await figures(live)).toEqual(await figures(ingested));
    expect(await figures(live)).toMatchObject({
      runs: 3,
      unresolved: { n: 1, byReason: { pending_at_scoring: 1 } },
      disagreements: { n: 1, of: 1 },
    });
  });

  it("answers the finality at scoring, and a status that turns terminal after scoring makes the run resolved_after_scoring, never final", async () => {
    const evaluationId = await newEvaluation();
    expect(await openLiveRun(db, evaluationId, { externalId: "a", taskId: "t", startedAt: at(0) })).toEqual({
      externalId: "a",
      created: true,
      state: "open",
    });
    await recordLiveEvents(db, evaluationId, "a", [
      { eventId: "1", type: "effect_requested", at: at(1), effectId: "tx", tool: "bank.transfer", handle: "task-1", surface: SURFACE },
      { eventId: "2", type: "effect_status", at: at(2), effectId: "tx", status: "pending" },
    ]);
    expect(await scoreLiveRun(db, evaluationId, "a", { endpointLabel: "success", at: at(3) })).toEqual({
      finality: "unresolved",
      reason: "pending_at_scoring",
      effectId: "tx",
      tool: "bank.transfer",
    });
    // The harness's word that it completed is not evidence: the transfer stays pending at scoring.
    const said = await recordLiveEvents(db, evaluationId, "a", [
      { eventId: "3", type: "effect_status", at: at(9), effectId: "tx", status: "completed" },
    ]);
    expect(said).toMatchObject({ accepted: 1, errors: [], state: "scored" });
    const unproven = await getEvaluationRun(db, evaluationId, "a");
    expect([unproven?.finality, unproven?.unresolvedReason]).toEqual(["unresolved", "pending_at_scoring"]);
    // Evidence read by its handle resolves it, after scoring.
    await recordLiveEvents(db, evaluationId, "a", [
      {
        eventId: "4",
        type: "effect_status",
        at: at(9),
        effectId: "tx",
        status: "completed",
        evidence: "task-1 completed",
        source: "bank API",
      },
    ]);
    const run = await getEvaluationRun(db, evaluationId, "a");
    expect([run?.finality, run?.unresolvedReason]).toEqual(["unresolved", "resolved_after_scoring"]);
    // The same score sent again answers the same; another score is refused.
    expect(await scoreLiveRun(db, evaluationId, "a", { endpointLabel: "success", at: at(3) })).toMatchObject({
      reason: "resolved_after_scoring",
    });
    await expect(scoreLiveRun(db, evaluationId, "a", { endpointLabel: "failure", at: at(3) })).rejects.toMatchObject({
      kind: "conflict",
      code: "live_run_scored",
    });
    await expect(openLiveRun(db, evaluationId, { externalId: "a", taskId: "t" })).rejects.toMatchObject({
      kind: "conflict",
      code: "live_run_scored",
    });
  });

  it("makes two runs that touched one account without a verified reset one unit, and two with one", async () => {
    for (const verified of [false, true]) {
      const evaluationId = await newEvaluation();
      for (const [externalId, second] of [
        ["first", 0],
        ["second", 10],
      ] as const) {
        await openLiveRun(db, evaluationId, { externalId, taskId: "t", startedAt: at(second) });
        const events: object[] = [{ eventId: "w", type: "touch", at: at(second + 1), surface: "acct:alice", op: "write" }];
        if (externalId === "second") events.unshift({ eventId: "r", type: "reset", at: at(second), surface: "acct:alice", verified });
        await recordLiveEvents(db, evaluationId, externalId, events);
        await scoreLiveRun(db, evaluationId, externalId, { endpointLabel: "success", at: at(second + 2) });
      }
      expect((await figures(evaluationId)).units).toMatchObject({ runRows: 2, analysisUnits: verified ? 2 : 1 });
    }
  });

  it("keeps events idempotent by eventId and refuses a bad event alone, naming its field", async () => {
    const evaluationId = await newEvaluation();
    await openLiveRun(db, evaluationId, { externalId: "b", taskId: "t", startedAt: at(5) });
    const request = { eventId: "1", type: "effect_requested", at: at(6), effectId: "tx", tool: "bank.transfer", handle: "h" };
    const answer = await recordLiveEvents(db, evaluationId, "b", [
      request,
      { eventId: "2", type: "effect_status", at: at(7), effectId: "nope", status: "pending" },
      { eventId: "3", type: "touch", at: at(1), surface: "acct:bob", op: "read" },
    ]);
    expect(answer).toMatchObject({
      accepted: 2,
      duplicates: 0,
      errors: [{ index: 1, code: "unknown_effect", field: "events.1.effectId" }],
    });
    expect(answer.flagged).toEqual([{ index: 2, code: "clock_skew", message: expect.stringContaining("events.2.at") }]);
    expect(await recordLiveEvents(db, evaluationId, "b", [request])).toMatchObject({ accepted: 1, duplicates: 1, errors: [] });
    // An eventId PostgreSQL cannot store is refused for that event alone (found by the hostile-input corpus).
    expect(await recordLiveEvents(db, evaluationId, "b", [{ ...request, eventId: "bad\u0000id" }])).toMatchObject({
      accepted: 0,
      errors: [{ index: 0, code: "invalid_event", field: "events.0.eventId" }],
    });
    const stored = await getLiveRun(db, evaluationId, "b");
    expect([stored?.eventCount, stored?.clockSkewEvents, stored?.state]).toEqual([2, 1, "open"]);
    // The run page's view: the effect at its latest status while the run is open.
    expect(stored?.record.effects?.map((e) => [e.effectId, e.statusAtScoring])).toEqual([["tx", "pending"]]);
    expect(stored?.record.startedAt).toBe(at(1));
    expect(await openLiveRuns(db, evaluationId)).toMatchObject({ total: 1, runs: [{ externalId: "b", taskId: "t", events: 2 }] });
  });

  it("stores a run never scored within the evaluation's timeout as unscored with that reason, and refuses a late score", async () => {
    const evaluationId = await newEvaluation({ liveRunTimeoutSeconds: 1 });
    await openLiveRun(db, evaluationId, { externalId: "c", taskId: "t" });
    await recordLiveEvents(db, evaluationId, "c", [
      { eventId: "1", type: "effect_requested", at: new Date().toISOString(), effectId: "tx", tool: "bank.transfer" },
    ]);
    const liveRunId = z
      .tuple([z.object({ id: z.bigint() })])
      .parse(await db.$queryRaw`SELECT id FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid`)[0]
      .id.toString();
    expect(await expireLiveRun(db, liveRunId)).toBe(false); // not due yet
    await db.$executeRaw`UPDATE live_runs SET expires_at = now() - interval '1 second' WHERE id = ${liveRunId}::bigint`;
    expect(await expireLiveRun(db, liveRunId)).toBe(true);
    const run = await getEvaluationRun(db, evaluationId, "c");
    expect([run?.finality, run?.unscoredReason]).toEqual([
      "unscored",
      "not scored within 1 s of opening (the evaluation's liveRunTimeoutSeconds)",
    ]);
    await expect(scoreLiveRun(db, evaluationId, "c", { endpointLabel: "success" })).rejects.toMatchObject({
      kind: "conflict",
      code: "live_run_expired",
    });
    // A write that finds a run overdue stores it unscored itself, with no worker.
    await openLiveRun(db, evaluationId, { externalId: "d", taskId: "t" });
    await db.$executeRaw`UPDATE live_runs SET expires_at = now() WHERE external_id = 'd'`;
    expect(
      await recordLiveEvents(db, evaluationId, "d", [
        { eventId: "1", type: "touch", at: new Date().toISOString(), surface: "s", op: "read" },
      ]),
    ).toMatchObject({
      accepted: 1,
      state: "expired",
    });
    expect((await getEvaluationRun(db, evaluationId, "d"))?.finality).toBe("unscored");
  });

  it("stores an overdue run unscored before refusing a score or an open of it with 409 live_run_expired", async () => {
    const evaluationId = await newEvaluation({ liveRunTimeoutSeconds: 1 });
    for (const externalId of ["scored-late", "opened-late"]) await openLiveRun(db, evaluationId, { externalId, taskId: "t" });
    await db.$executeRaw`UPDATE live_runs SET expires_at = now() - interval '1 second' WHERE evaluation_id = ${evaluationId}::uuid`;
    const expired = (externalId: string) => ({
      kind: "conflict",
      code: "live_run_expired",
      field: "externalId",
      message: `live run ${externalId} was not scored within 1 s of opening (the evaluation's liveRunTimeoutSeconds) and is stored unscored`,
    });
    await expect(scoreLiveRun(db, evaluationId, "scored-late", { endpointLabel: "success" })).rejects.toMatchObject(expired("scored-late"));
    await expect(openLiveRun(db, evaluationId, { externalId: "opened-late", taskId: "t" })).rejects.toMatchObject(expired("opened-late"));
    for (const externalId of ["scored-late", "opened-late"]) {
      const run = await getEvaluationRun(db, evaluationId, externalId);
      expect([run?.finality, run?.unscoredReason]).toEqual(["unscored", expect.stringContaining("not scored within 1 s")]);
      expect((await getLiveRun(db, evaluationId, externalId))?.state).toBe("expired");
    }
    expect(await figures(evaluationId)).toMatchObject({ runs: 2, unscored: 2 });
    // Sent again, the score is refused the same way and the run is stored once.
    await expect(scoreLiveRun(db, evaluationId, "scored-late", { endpointLabel: "success" })).rejects.toMatchObject(expired("scored-late"));
    expect(await figures(evaluationId)).toMatchObject({ runs: 2, unscored: 2 });
  });

  it("closes a run without a score as unscored with the harness's reason, and refuses to open a run ingested already", async () => {
    const evaluationId = await newEvaluation();
    await openLiveRun(db, evaluationId, { externalId: "e", taskId: "t" });
    expect(await scoreLiveRun(db, evaluationId, "e", { unscoredReason: "ValueError" })).toEqual({
      finality: "unscored",
      reason: "ValueError",
    });
    await ingestRuns(db, evaluationId, workedExample());
    const refusal = await openLiveRun(db, evaluationId, { externalId: "r1", taskId: "t1" }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: "conflict", code: "run_exists", field: "externalId" });
    await expect(recordLiveEvents(db, evaluationId, "nope", [])).rejects.toMatchObject({ kind: "not_found", field: "externalId" });
  });
});

describe("a score and the run's recorders", () => {
  it("opens a run it names that was never opened (a score may overtake its recorder), for the task of its name", async () => {
    const evaluationId = await newEvaluation();
    expect(await scoreLiveRun(db, evaluationId, "early", { endpointLabel: "success", at: at(3) })).toEqual({
      finality: "final",
    });
    expect(await getEvaluationRun(db, evaluationId, "early")).toMatchObject({
      taskId: "early",
      finality: "final",
      endpointLabel: "success",
    });
    // An ingested run is no live run: still refused.
    await ingestRuns(db, evaluationId, workedExample());
    await expect(scoreLiveRun(db, evaluationId, "r1", { endpointLabel: "success" })).rejects.toMatchObject({ code: "run_exists" });
  });

  it("waits for a live recorder to deliver what it saw up to the score, and past the bound never answers final", async () => {
    const evaluationId = await newEvaluation();
    await openLiveRun(db, evaluationId, { externalId: "rec", taskId: "t", startedAt: at(0) });
    await recorderHeartbeat(db, evaluationId, "rec", "rec-1", { kind: "mcp stdio", flushedThrough: at(1) });
    // The recorder delivers the transfer's acknowledgement and says it is flushed through the score while the score waits.
    const delivered = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await recordLiveEvents(db, evaluationId, "rec", [
        { eventId: "1", type: "effect_requested", at: at(2), effectId: "tx", tool: "bank.transfer", handle: "task-1" },
        { eventId: "2", type: "effect_status", at: at(2), effectId: "tx", status: "pending" },
      ]);
      await recorderHeartbeat(db, evaluationId, "rec", "rec-1", { flushedThrough: at(4) });
    })();
    expect(await scoreLiveRun(db, evaluationId, "rec", { endpointLabel: "success", at: at(3) })).toEqual({
      finality: "unresolved",
      reason: "pending_at_scoring",
      effectId: "tx",
      tool: "bank.transfer",
    });
    await delivered;

    // A recorder that never catches up: the score is stored, and answered as evidence still arriving, not final.
    await openLiveRun(db, evaluationId, { externalId: "lagging", taskId: "t", startedAt: at(0) });
    await recorderHeartbeat(db, evaluationId, "lagging", "rec-2", { kind: "mcp stdio", flushedThrough: at(1) });
    const started = Date.now();
    expect(await scoreLiveRun(db, evaluationId, "lagging", { endpointLabel: "success", at: at(3) })).toEqual({
      finality: "unresolved",
      reason: "evidence_arriving",
      awaiting: ["rec-2"],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SCORE_WAITS_FOR_RECORDERS_MS);
    expect(await getEvaluationRun(db, evaluationId, "lagging")).toMatchObject({ endpointLabel: "success" });
    // A recorder that said it stopped is not waited for.
    await openLiveRun(db, evaluationId, { externalId: "stopped", taskId: "t", startedAt: at(0) });
    await recorderHeartbeat(db, evaluationId, "stopped", "rec-3", { kind: "mcp stdio", flushedThrough: at(1), stopped: true });
    // Scored now (the server's time), after the recorder said it stopped: the run page flags it.
    expect(await scoreLiveRun(db, evaluationId, "stopped", { endpointLabel: "success" })).toEqual({ finality: "final" });
    const { scoredAt } = (await getEvaluationRun(db, evaluationId, "stopped"))!;
    expect(recorderFlags(await liveRunRecorders(db, evaluationId, "stopped"), scoredAt)).toEqual([
      { recorderId: "rec-3", kind: "mcp stdio", problem: "stopped_before_score" },
    ]);
    await expect(recorderHeartbeat(db, evaluationId, "never-opened", "rec-4", {})).rejects.toMatchObject({ kind: "not_found" });
  });
});
