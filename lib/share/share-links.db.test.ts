import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Principal } from "../auth/principal";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { DomainError, type ErrorKind } from "../errors";
import { replayConfigSchema } from "../replay/rules/config";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { canonicalJson, contentHash } from "../content-hash";
import { createEvaluation } from "../evaluations/create-evaluation";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { DEFAULT_EVALUATION_RULE, declarationOf } from "../statistics/exclusion-rule";
import { exclusionRuleIdentity } from "../statistics/exclusion-rule-hash";
import { loadShareContent, type ComparisonShareContent, type ExperimentShareContent, type RunShareContent } from "./resources";
import { createShareLinkSchema, listShareLinksQuerySchema } from "./schemas";
import {
  createShareLink,
  listShareLinks,
  openShareLink,
  revokeShareLink,
  setShareLinksDisabled,
  shareLinksDisabled,
  visibleShareLinks,
  type OpenShareLinkResult,
  type ShareLinkView,
} from "./share-links";
import { hashShareToken } from "./token";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date("2031-03-01T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
/** The ISO string of `at(ms)`: how results report times. */
const iso = (ms: number) => at(ms).toISOString();
const DEFAULTS = { defaultExpiryDays: 14, now: T0 };

let database: TestDatabase;
let db: Db;

const principal = (id: string, role: Principal["role"]): Principal => ({
  userId: id,
  email: `${id}@example.test`,
  name: id,
  role,
  via: "session",
});
const alice = principal("alice", "editor");
const bob = principal("bob", "editor");
const root = principal("root", "admin");
const carol = principal("carol", "editor");

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  for (const p of [alice, bob, root, carol]) await db.user.create({ data: { id: p.userId, email: p.email, name: p.name, role: p.role } });
});
afterAll(async () => {
  await database?.drop();
});

// ---------------------------------------------------------------------------------------------
// Fixtures: an experiment with one finality run and its open effect, written as the replay would.

async function addRun(experimentId: string, repetition: number, recordedLabel: "success" | "failure") {
  return db.run.create({
    data: {
      experimentId,
      test: "finality",
      condition: "snapshot",
      taskId: "task-1",
      groupId: `group-${repetition}`,
      scheduleId: 0,
      delayMs: 25,
      repetition,
      role: "single",
      namespace: `ns-${repetition}`,
      key: "k",
      endpointLabel: "success",
      terminalLabel: recordedLabel,
      recordedLabel,
      finalAtScoring: false,
      score: recordedLabel === "success" ? 1 : 0,
      measuredDelayMs: 26.25,
      classification: "completed",
      inheritedState: "none",
      startedAtMs: 1000.5,
      endpointAtMs: 1010.25,
      scoredAtMs: 1011,
      endedAtMs: 1040,
      evidence: { zeta: [3, 1, 2], alpha: { nested: true, none: null }, note: "endpoint read at 1010.25 ms" },
    },
  });
}

async function seedExperiment() {
  const config = replayConfigSchema.parse({ delaysMs: [25], schedules: 1, repetitions: 2 });
  const experiment = await db.experiment.create({
    data: { state: "running", config: config as unknown as Prisma.InputJsonValue, startedAt: at(-HOUR) },
  });
  const run = await addRun(experiment.id, 0, "success");
  await db.openEffect.create({
    data: {
      experimentId: experiment.id,
      runId: run.id,
      taskId: run.taskId,
      groupId: run.groupId,
      tracePosition: 2,
      action: "write",
      arguments: { key: "k", value: 1 },
      initiatedAtMs: 1001,
      resource: "kv",
      controller: "service",
      observationHandle: `handle-${run.id}`,
      endpointStatus: "pending",
      possibleTransitions: ["completed", "failed"],
      crossRunRoute: "none",
      terminalStatus: "completed",
      terminalEvidence: { seenAtMs: 1030 },
      resolvedAtMs: 1030,
    },
  });
  return { experimentId: experiment.id, runId: run.id };
}

const input = (fields: Record<string, unknown>) => createShareLinkSchema.parse(fields);

async function useOf(id: string) {
  return db.shareLink.findUniqueOrThrow({ where: { id }, select: { useCount: true, lastUsedAt: true } });
}

function expectOk(result: OpenShareLinkResult) {
  if (result.status !== "ok") throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result;
}

async function expectRefusal(promise: Promise<unknown>, kind: ErrorKind): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe(kind);
  return error as DomainError;
}

/** A token differing from `token` in exactly one character, still well formed. */
function tampered(token: string, index: number): string {
  const flipped = token[index] === "Q" ? "g" : "Q"; // both valid at any position, including the last
  return `${token.slice(0, index)}${flipped}${token.slice(index + 1)}`;
}

// ---------------------------------------------------------------------------------------------

describe("share links on the embedded PostgreSQL", () => {
  it("creates a frozen link whose token opens the snapshot, counting each use", async () => {
    const { experimentId } = await seedExperiment();
    const { token, link } = await createShareLink(
      db,
      alice,
      input({ resourceType: "experiment", resourceId: experimentId, note: " for R2 " }),
      DEFAULTS,
    );

    const current = await loadShareContent(db, "experiment", experimentId);
    expect(link).toMatchObject({
      resourceType: "experiment",
      resourceId: experimentId,
      mode: "frozen",
      note: "for R2",
      status: "active",
      useCount: 0,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(link.createdBy).toEqual({ id: "alice", email: "alice@example.test", name: "alice" });
    expect(link.createdAt).toBe(T0.toISOString());
    expect(link.expiresAt).toBe(iso(14 * DAY)); // the instance default
    expect(link.contentHash).toBe(contentHash(current));

    const first = expectOk(await openShareLink(db, token, at(HOUR)));
    expect(first.link).toEqual({
      id: link.id,
      resourceType: "experiment",
      resourceId: experimentId,
      mode: "frozen",
      createdAt: T0.toISOString(),
      expiresAt: iso(14 * DAY),
      note: "for R2",
    });
    expect(first.content).toEqual(current);
    expect(first.contentHash).toBe(link.contentHash);
    expect(contentHash(first.content)).toBe(first.contentHash); // a reviewer can check it
    expect(first.snapshotAt).toBe(T0.toISOString());
    expect(await useOf(link.id)).toEqual({ useCount: 1, lastUsedAt: at(HOUR) });

    expectOk(await openShareLink(db, token, at(2 * HOUR)));
    expect(await useOf(link.id)).toEqual({ useCount: 2, lastUsedAt: at(2 * HOUR) });
  });

  it("shows plain JSON: the content of an experiment and of a run survive a JSON round trip unchanged", async () => {
    const { experimentId, runId } = await seedExperiment();
    const experiment = (await loadShareContent(db, "experiment", experimentId)) as ExperimentShareContent;
    const run = (await loadShareContent(db, "run", runId)) as RunShareContent;
    for (const content of [experiment, run]) expect(JSON.parse(JSON.stringify(content))).toStrictEqual(content);

    expect(experiment.experiment).toMatchObject({
      id: experimentId,
      state: "running",
      startedAt: at(-HOUR).toISOString(),
      finishedAt: null,
    });
    expect(experiment.summary.classifications.completed).toBe(1);
    expect(run.run).toMatchObject({ id: runId, experimentId, recordedLabel: "success", measuredDelayMs: 26.25 });
    expect(typeof run.run.createdAt).toBe("string");
    expect(run.run.evidence).toEqual({ zeta: [3, 1, 2], alpha: { nested: true, none: null }, note: "endpoint read at 1010.25 ms" });
    expect(run.experiment).toEqual({ id: experimentId, state: "running" });
    expect(run.openEffects.map((e) => [e.runId, e.terminalStatus])).toEqual([[runId, "completed"]]);
    expect(await loadShareContent(db, "run", "00000000-0000-4000-8000-000000000000")).toBeNull();
  });

  it("refuses an expired link as expired, without counting a use; null expiry never expires", async () => {
    const { runId } = await seedExperiment();
    const day = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId, expiresInDays: 1 }), DEFAULTS);
    expect(day.link.expiresAt).toBe(iso(DAY));
    expectOk(await openShareLink(db, day.token, at(DAY - 1)));
    expect(await openShareLink(db, day.token, at(DAY))).toEqual({ status: "expired", expiredAt: iso(DAY) });
    expect(await openShareLink(db, day.token, at(30 * DAY))).toEqual({ status: "expired", expiredAt: iso(DAY) });
    expect((await useOf(day.link.id)).useCount).toBe(1);

    const never = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId, expiresInDays: null }), DEFAULTS);
    expect(never.link.expiresAt).toBeNull();
    expectOk(await openShareLink(db, never.token, at(100 * 365 * DAY)));
  });

  it("refuses a revoked link as revoked, without counting a use", async () => {
    const { runId } = await seedExperiment();
    const { token, link } = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId, mode: "live" }), DEFAULTS);
    expectOk(await openShareLink(db, token, at(HOUR)));
    await revokeShareLink(db, alice, link.id, at(2 * HOUR));
    expect(await openShareLink(db, token, at(3 * HOUR))).toEqual({ status: "revoked", revokedAt: iso(2 * HOUR) });
    expect(await useOf(link.id)).toEqual({ useCount: 1, lastUsedAt: at(HOUR) });
  });

  it("answers tampered, malformed and unknown tokens alike: invalid", async () => {
    const { experimentId } = await seedExperiment();
    const { token, link } = await createShareLink(db, alice, input({ resourceType: "experiment", resourceId: experimentId }), DEFAULTS);
    const wrong = [
      tampered(token, 0),
      tampered(token, 20),
      tampered(token, 42),
      token.slice(0, 42), // malformed: too short
      `${token}A`,
      token.replace(/^./, "+"),
      "",
      "../../etc/passwd",
    ];
    for (const candidate of wrong) expect(await openShareLink(db, candidate, at(HOUR)), candidate).toEqual({ status: "invalid" });
    expect((await useOf(link.id)).useCount).toBe(0);
    expectOk(await openShareLink(db, token, at(HOUR)));
  });

  it("kill switch: every link is disabled while it is on, and opens again when it is off", async () => {
    const { experimentId, runId } = await seedExperiment();
    const frozen = await createShareLink(db, alice, input({ resourceType: "experiment", resourceId: experimentId }), DEFAULTS);
    const live = await createShareLink(db, bob, input({ resourceType: "run", resourceId: runId, mode: "live" }), DEFAULTS);
    const revoked = await createShareLink(db, bob, input({ resourceType: "run", resourceId: runId }), DEFAULTS);
    await revokeShareLink(db, bob, revoked.link.id, at(HOUR));

    await expectRefusal(setShareLinksDisabled(db, alice, true), "forbidden");
    expect(await shareLinksDisabled(db)).toBe(false);

    const switched = await setShareLinksDisabled(db, root, true);
    try {
      expect(switched).toMatchObject({ disabled: true, updatedById: "root" });
      expect(await shareLinksDisabled(db)).toBe(true);
      for (const token of [frozen.token, live.token, revoked.token, tampered(frozen.token, 3), "junk"]) {
        expect(await openShareLink(db, token, at(2 * HOUR))).toEqual({ status: "disabled" });
      }
      expect((await useOf(frozen.link.id)).useCount).toBe(0);
    } finally {
      await setShareLinksDisabled(db, root, false);
    }
    expect(await shareLinksDisabled(db)).toBe(false);
    expect(await db.instanceSettings.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      shareLinksDisabled: false,
      updatedById: "root",
    });
    expectOk(await openShareLink(db, frozen.token, at(2 * HOUR)));
    expectOk(await openShareLink(db, live.token, at(2 * HOUR)));
    expect(await openShareLink(db, revoked.token, at(2 * HOUR))).toEqual({ status: "revoked", revokedAt: iso(HOUR) });
  });

  it("a frozen link stays byte-identical when its experiment and runs change; a live link shows the change", async () => {
    const { experimentId, runId } = await seedExperiment();
    const frozenExperiment = await createShareLink(db, alice, input({ resourceType: "experiment", resourceId: experimentId }), DEFAULTS);
    const liveExperiment = await createShareLink(
      db,
      alice,
      input({ resourceType: "experiment", resourceId: experimentId, mode: "live" }),
      DEFAULTS,
    );
    const frozenRun = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId }), DEFAULTS);
    const liveRun = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId, mode: "live" }), DEFAULTS);
    const storedSnapshot = async (id: string) =>
      (await db.$queryRaw<Array<{ s: string }>>`SELECT snapshot::text AS s FROM share_links WHERE id = ${id}::uuid`)[0]!.s;

    const before = {
      frozenExperiment: expectOk(await openShareLink(db, frozenExperiment.token, at(HOUR))),
      liveExperiment: expectOk(await openShareLink(db, liveExperiment.token, at(HOUR))),
      frozenRun: expectOk(await openShareLink(db, frozenRun.token, at(HOUR))),
      liveRun: expectOk(await openShareLink(db, liveRun.token, at(HOUR))),
      storedExperiment: await storedSnapshot(frozenExperiment.link.id),
      storedRun: await storedSnapshot(frozenRun.link.id),
    };
    // Nothing changed yet: live and frozen agree, and the live content hashes the same each time.
    expect(before.liveExperiment.contentHash).toBe(before.frozenExperiment.contentHash);
    expect(before.liveRun.contentHash).toBe(before.frozenRun.contentHash);
    expect(before.liveExperiment.snapshotAt).toBe(iso(HOUR));
    expect(expectOk(await openShareLink(db, liveExperiment.token, at(HOUR))).contentHash).toBe(before.liveExperiment.contentHash);

    await addRun(experimentId, 1, "failure");
    await db.run.update({ where: { id: runId }, data: { recordedLabel: "unresolved", evidence: { rescored: true } } });
    await db.openEffect.updateMany({ where: { runId }, data: { terminalStatus: "unresolved" } });
    await db.experiment.update({ where: { id: experimentId }, data: { state: "completed", finishedAt: at(HOUR) } });

    const frozenExperimentAfter = expectOk(await openShareLink(db, frozenExperiment.token, at(2 * HOUR)));
    const frozenRunAfter = expectOk(await openShareLink(db, frozenRun.token, at(2 * HOUR)));
    expect(canonicalJson(frozenExperimentAfter.content)).toBe(canonicalJson(before.frozenExperiment.content));
    expect(frozenExperimentAfter.contentHash).toBe(before.frozenExperiment.contentHash);
    expect(canonicalJson(frozenRunAfter.content)).toBe(canonicalJson(before.frozenRun.content));
    expect(frozenRunAfter.contentHash).toBe(before.frozenRun.contentHash);
    expect(await storedSnapshot(frozenExperiment.link.id)).toBe(before.storedExperiment);
    expect(await storedSnapshot(frozenRun.link.id)).toBe(before.storedRun);
    expect((frozenExperimentAfter.content as ExperimentShareContent).experiment.state).toBe("running");

    const liveExperimentAfter = expectOk(await openShareLink(db, liveExperiment.token, at(2 * HOUR)));
    const shown = liveExperimentAfter.content as ExperimentShareContent;
    expect(shown.experiment).toMatchObject({ state: "completed", finishedAt: at(HOUR).toISOString() });
    expect(shown.summary.classifications.completed).toBe(2);
    expect(liveExperimentAfter.contentHash).not.toBe(before.liveExperiment.contentHash);
    expect(liveExperimentAfter.contentHash).toBe(contentHash(shown));
    expect(liveExperimentAfter.snapshotAt).toBe(iso(2 * HOUR));

    const liveRunAfter = expectOk(await openShareLink(db, liveRun.token, at(2 * HOUR)));
    const run = liveRunAfter.content as RunShareContent;
    expect(run.run).toMatchObject({ recordedLabel: "unresolved", evidence: { rescored: true } });
    expect(run.experiment.state).toBe("completed");
    expect(run.openEffects.map((e) => e.terminalStatus)).toEqual(["unresolved"]);
    expect(liveRunAfter.contentHash).not.toBe(before.liveRun.contentHash);
  });

  it("shares a comparison of evaluations: frozen under its one rule with the snapshot's hash, listed by its ids, gone live when one is deleted", async () => {
    const run = (externalId: string, second: number, endpointLabel: "success" | "failure") => ({
      externalId,
      taskId: "t",
      startedAt: new Date(T0.getTime() + second * 1000).toISOString(),
      scoredAt: new Date(T0.getTime() + (second + 1) * 1000).toISOString(),
      endpointLabel,
    });
    const first = await createEvaluation(db, { name: "first" }, null);
    const second = await createEvaluation(
      db,
      { name: "second", exclusionRule: { ...declarationOf(DEFAULT_EVALUATION_RULE), unresolved: "exclude" } },
      null,
    );
    await ingestRuns(db, first, [run("a", 0, "success"), run("b", 2, "failure")]);
    await ingestRuns(db, second, [run("c", 0, "success"), run("d", 2, "success")]);
    const ids = [second, first];
    const frozen = await createShareLink(db, alice, input({ resourceType: "comparison", resourceIds: ids }), DEFAULTS);
    const live = await createShareLink(db, alice, input({ resourceType: "comparison", resourceIds: ids, mode: "live" }), DEFAULTS);
    const opened = expectOk(await openShareLink(db, frozen.token, at(HOUR)));
    const content = opened.content as ComparisonShareContent;
    expect(content.kind).toBe("comparison");
    // In the order given; the first one's declared rule (version 1, unresolved excluded) applies to both, and the note says their rules differ.
    expect(content.comparison.evaluations.map((e) => [e.name, e.reported.n, e.reported.N])).toEqual([
      ["second", 2, 2],
      ["first", 1, 2],
    ]);
    expect(content.comparison).toMatchObject({
      rulesDiffer: true,
      rule: {
        version: 1,
        hash: exclusionRuleIdentity({ ...declarationOf(DEFAULT_EVALUATION_RULE), unresolved: "exclude", version: 1 }).hash,
      },
    });
    expect(content.comparison.ruleNote).toContain("this comparison applies second's rule version 1");
    expect(opened.contentHash).toBe(contentHash(content));
    expect(frozen.link.contentHash).toBe(opened.contentHash);
    expect(JSON.parse(JSON.stringify(content))).toEqual(content);
    // The panel of this comparison lists its two links, not those of the same ids in another order.
    await createShareLink(db, alice, input({ resourceType: "comparison", resourceIds: [first, second] }), DEFAULTS);
    const listed = await visibleShareLinks(
      db,
      alice,
      listShareLinksQuerySchema.parse({ resourceType: "comparison", resourceIds: ids.join(",") }),
      at(HOUR),
    );
    expect(listed.map((l) => l.id).sort()).toEqual([frozen.link.id, live.link.id].sort());
    // Refusals name the field: no ids, one id, an id where there must be none, an unknown evaluation.
    expect(createShareLinkSchema.safeParse({ resourceType: "comparison" }).error!.issues[0]).toMatchObject({ path: ["resourceIds"] });
    expect(createShareLinkSchema.safeParse({ resourceType: "comparison", resourceIds: [first] }).error!.issues[0]).toMatchObject({
      path: ["resourceIds"],
      message: "resourceIds must name at least two evaluations",
    });
    expect(
      createShareLinkSchema.safeParse({ resourceType: "evaluation", resourceId: first, resourceIds: ids }).error!.issues[0],
    ).toMatchObject({ path: ["resourceIds"] });
    const unknown = await expectRefusal(
      createShareLink(
        db,
        alice,
        input({ resourceType: "comparison", resourceIds: [first, "00000000-0000-4000-8000-000000000000"] }),
        DEFAULTS,
      ),
      "not_found",
    );
    expect(unknown.field).toBe("resourceIds");
    // One evaluation deleted: the live link is gone, the frozen one still shows what was shared.
    await db.evaluation.delete({ where: { id: first } });
    expect(await openShareLink(db, live.token, at(2 * HOUR))).toEqual({ status: "gone" });
    expect(expectOk(await openShareLink(db, frozen.token, at(2 * HOUR))).contentHash).toBe(opened.contentHash);
  });

  it("a live link whose resource was deleted is gone; a frozen one still opens", async () => {
    const { experimentId, runId } = await seedExperiment();
    const liveExperiment = await createShareLink(
      db,
      alice,
      input({ resourceType: "experiment", resourceId: experimentId, mode: "live" }),
      DEFAULTS,
    );
    const liveRun = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId, mode: "live" }), DEFAULTS);
    const frozenRun = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId }), DEFAULTS);
    await db.experiment.delete({ where: { id: experimentId } }); // cascades to its runs

    expect(await openShareLink(db, liveExperiment.token, at(HOUR))).toEqual({ status: "gone" });
    expect(await openShareLink(db, liveRun.token, at(HOUR))).toEqual({ status: "gone" });
    expect((await useOf(liveRun.link.id)).useCount).toBe(0);
    expect((expectOk(await openShareLink(db, frozenRun.token, at(HOUR))).content as RunShareContent).run.id).toBe(runId);
  });

  it("stores only the token's hash: the token is nowhere in the row, nor in the listing", async () => {
    const { experimentId } = await seedExperiment();
    const { token, link } = await createShareLink(
      db,
      alice,
      input({ resourceType: "experiment", resourceId: experimentId, note: "hash only" }),
      DEFAULTS,
    );
    const [row] = await db.$queryRaw<
      Array<{ json: string }>
    >`SELECT row_to_json(s)::text AS json FROM share_links s WHERE id = ${link.id}::uuid`;
    expect(row!.json).toContain(hashShareToken(token));
    expect(row!.json).not.toContain(token);
    expect(row!.json).not.toContain(token.slice(0, 16));

    const listed = await listShareLinks(db);
    const mine = listed.find((l) => l.id === link.id)!;
    expect(Object.keys(mine)).not.toContain("tokenHash");
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(JSON.stringify(listed)).not.toContain(hashShareToken(token));
    expect(JSON.stringify(link)).not.toContain(hashShareToken(token));
  });

  it("revoke: own links yes, another editor's no (403), an admin's any; the first revokedAt stays", async () => {
    const { runId } = await seedExperiment();
    const alices = await createShareLink(db, alice, input({ resourceType: "run", resourceId: runId }), DEFAULTS);
    const bobs = await createShareLink(db, bob, input({ resourceType: "run", resourceId: runId }), DEFAULTS);

    await expectRefusal(revokeShareLink(db, bob, alices.link.id, at(HOUR)), "forbidden");
    expect((await db.shareLink.findUniqueOrThrow({ where: { id: alices.link.id } })).revokedAt).toBeNull();
    expectOk(await openShareLink(db, alices.token, at(HOUR)));

    const revoked = await revokeShareLink(db, alice, alices.link.id, at(2 * HOUR));
    expect(revoked).toMatchObject({ id: alices.link.id, status: "revoked", revokedAt: iso(2 * HOUR), useCount: 1 });
    const again = await revokeShareLink(db, alice, alices.link.id, at(3 * HOUR));
    expect(again.revokedAt).toBe(iso(2 * HOUR));

    const byAdmin = await revokeShareLink(db, root, bobs.link.id, at(4 * HOUR));
    expect(byAdmin).toMatchObject({ status: "revoked", revokedAt: iso(4 * HOUR), createdBy: { id: "bob" } });

    await expectRefusal(revokeShareLink(db, root, "00000000-0000-4000-8000-000000000000"), "not_found");
    await expectRefusal(revokeShareLink(db, root, "not-a-uuid"), "not_found");
  });

  it("refuses an unknown resource with a 404 naming it, and writes nothing", async () => {
    const missing = "7d1f0c2e-5b8a-4c3d-9e6f-0a1b2c3d4e5f";
    const { experimentId } = await seedExperiment();
    const before = await db.shareLink.count();
    for (const fields of [
      { resourceType: "experiment", resourceId: missing },
      { resourceType: "experiment", resourceId: missing, mode: "live" },
      { resourceType: "run", resourceId: missing },
      { resourceType: "run", resourceId: experimentId, mode: "live" }, // an experiment's id is not a run's
    ]) {
      const error = await expectRefusal(createShareLink(db, alice, input(fields), DEFAULTS), "not_found");
      expect(error.message).toBe(`${fields.resourceType} ${fields.resourceId} not found`);
      expect(error.field).toBe("resourceId");
    }
    expect(await db.shareLink.count()).toBe(before);
  });

  it("lists links newest first with their status, for one creator or for everyone", async () => {
    const { runId } = await seedExperiment();
    const make = (days: number, fields: Record<string, unknown> = {}) =>
      createShareLink(db, carol, input({ resourceType: "run", resourceId: runId, ...fields }), {
        defaultExpiryDays: 14,
        now: at(days * DAY),
      });
    const oldest = await make(0, { expiresInDays: 1 });
    const middle = await make(1, { mode: "live" });
    const newest = await make(2);
    await revokeShareLink(db, carol, middle.link.id, at(2 * DAY));

    const carols = await listShareLinks(db, { createdById: "carol", now: at(3 * DAY) });
    expect(carols.map((l) => [l.id, l.status, l.mode])).toEqual([
      [newest.link.id, "active", "frozen"],
      [middle.link.id, "revoked", "live"],
      [oldest.link.id, "expired", "frozen"],
    ]);
    expect(carols[0]!.createdBy).toEqual({ id: "carol", email: "carol@example.test", name: "carol" });
    expect(carols[1]!.contentHash).toBeNull(); // live links keep no content

    const everyone = await listShareLinks(db);
    expect(everyone).toHaveLength(await db.shareLink.count());
    expect(new Set(everyone.map((l) => l.createdBy.id))).toEqual(new Set(["alice", "bob", "carol"]));
    const times = everyone.map((l) => Date.parse(l.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("lists one resource's links for its share panel: an editor's own, an admin every user's, each with status, uses and last use", async () => {
    const { experimentId, runId } = await seedExperiment();
    const other = await seedExperiment();
    const dave = principal("dave", "editor");
    const erin = principal("erin", "admin");
    for (const p of [dave, erin]) await db.user.create({ data: { id: p.userId, email: p.email, name: p.name, role: p.role } });
    const make = (who: Principal, fields: Record<string, unknown>, days = 0) =>
      createShareLink(db, who, input(fields), { defaultExpiryDays: 14, now: at(days * DAY) });
    const davesOld = await make(dave, { resourceType: "experiment", resourceId: experimentId, expiresInDays: 1 }, 0);
    const davesUsed = await make(dave, { resourceType: "experiment", resourceId: experimentId, mode: "live" }, 1);
    const davesRevoked = await make(dave, { resourceType: "experiment", resourceId: experimentId }, 2);
    const erins = await make(erin, { resourceType: "experiment", resourceId: experimentId }, 3);
    await make(dave, { resourceType: "experiment", resourceId: other.experimentId }, 1); // another experiment
    await make(dave, { resourceType: "run", resourceId: runId }, 1); // a run of this experiment is another resource
    const davesMatrix = await make(dave, { resourceType: "protocol_matrix" }, 1);
    expectOk(await openShareLink(db, davesUsed.token, at(1 * DAY + HOUR)));
    expectOk(await openShareLink(db, davesUsed.token, at(1 * DAY + 2 * HOUR)));
    await revokeShareLink(db, dave, davesRevoked.link.id, at(2 * DAY + HOUR));

    // The banner names the experiment; its notes stay private.
    await db.experiment.update({ where: { id: experimentId }, data: { name: "R2 smoke", notes: "internal only" } });
    const shared = (await loadShareContent(db, "experiment", experimentId)) as ExperimentShareContent;
    expect(shared.experiment.name).toBe("R2 smoke");
    expect(JSON.stringify(shared)).not.toContain("internal only");

    const query = (fields: Record<string, unknown>) => listShareLinksQuerySchema.parse(fields);
    const ofExperiment = query({ resourceType: "experiment", resourceId: experimentId });
    const summary = (links: ShareLinkView[]) => links.map((l) => [l.id, l.status, l.uses, l.lastUsedAt, l.createdBy.email]);

    expect(summary(await visibleShareLinks(db, dave, ofExperiment, at(3 * DAY)))).toEqual([
      [davesRevoked.link.id, "revoked", 0, null, "dave@example.test"],
      [davesUsed.link.id, "active", 2, iso(1 * DAY + 2 * HOUR), "dave@example.test"],
      [davesOld.link.id, "expired", 0, null, "dave@example.test"],
    ]);
    // The admin's panel shows every user's links to the resource, without ?all.
    expect((await visibleShareLinks(db, erin, ofExperiment, at(3 * DAY))).map((l) => l.id)).toEqual([
      erins.link.id,
      davesRevoked.link.id,
      davesUsed.link.id,
      davesOld.link.id,
    ]);
    // Another editor sees none of dave's.
    expect(await visibleShareLinks(db, alice, ofExperiment)).toEqual([]);
    expect((await visibleShareLinks(db, dave, query({ resourceType: "protocol_matrix" }))).map((l) => l.id)).toEqual([davesMatrix.link.id]);
    expect(
      await visibleShareLinks(db, dave, query({ resourceType: "experiment", resourceId: "7d1f0c2e-5b8a-4c3d-9e6f-0a1b2c3d4e5f" })),
    ).toEqual([]);

    // Without a resource: one's own links, or (?all, admins only) everyone's.
    expect((await visibleShareLinks(db, dave, query({}))).every((l) => l.createdBy.id === "dave")).toBe(true);
    expect(await visibleShareLinks(db, erin, query({ all: "true" }))).toHaveLength(await db.shareLink.count());
    const refused = await expectRefusal(visibleShareLinks(db, dave, query({ all: "true" })), "forbidden");
    expect(refused.field).toBe("all");
  });

  it("honours a revoke or the kill switch that lands between the lookup and the use", async () => {
    const { experimentId } = await seedExperiment();
    const revokedMeanwhile = await createShareLink(db, alice, input({ resourceType: "experiment", resourceId: experimentId }), DEFAULTS);
    const racing = afterTokenLookup(db, () => revokeShareLink(db, alice, revokedMeanwhile.link.id, at(HOUR)));
    expect(await openShareLink(racing, revokedMeanwhile.token, at(2 * HOUR))).toEqual({ status: "revoked", revokedAt: iso(HOUR) });
    expect(await useOf(revokedMeanwhile.link.id)).toEqual({ useCount: 0, lastUsedAt: null });

    const disabledMeanwhile = await createShareLink(
      db,
      alice,
      input({ resourceType: "experiment", resourceId: experimentId, mode: "live" }),
      DEFAULTS,
    );
    const switching = afterTokenLookup(db, () => setShareLinksDisabled(db, root, true));
    try {
      expect(await openShareLink(switching, disabledMeanwhile.token, at(2 * HOUR))).toEqual({ status: "disabled" });
    } finally {
      await setShareLinksDisabled(db, root, false);
    }
    expect((await useOf(disabledMeanwhile.link.id)).useCount).toBe(0);
  });
});

/** The database, with `meanwhile` run right after openShareLink has found the link by its token. */
function afterTokenLookup(target: Db, meanwhile: () => Promise<unknown>): Db {
  const delegate = target.shareLink;
  const shareLink = new Proxy(delegate, {
    get(object, property) {
      if (property !== "findUnique") return Reflect.get(object, property);
      return async (args: Parameters<typeof delegate.findUnique>[0]) => {
        const found = await delegate.findUnique(args);
        if ("tokenHash" in args.where) await meanwhile();
        return found;
      };
    },
  });
  return new Proxy(target, {
    get(object, property) {
      if (property === "shareLink") return shareLink;
      const value = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
