import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash } from "../content-hash";
import { loadShareContent, type ExperimentShareContent, type RunShareContent } from "./resources";
import { createShareLink, openShareLink, revokeShareLink, setShareLinksDisabled, shareLinksDisabled } from "./share-links";
import {
  DAY,
  DEFAULTS,
  HOUR,
  T0,
  addRun,
  alice,
  at,
  bob,
  db,
  expectOk,
  expectRefusal,
  input,
  iso,
  root,
  seedExperiment,
  tampered,
  useOf,
  useShareLinkDatabase,
} from "../testing/share-link-fixtures";

// Share links on a real PostgreSQL: creating, opening and refusing them, the kill switch, frozen against live. Listing, revoking and resource changes: share-links-manage.db.test.ts.

useShareLinkDatabase();
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
});
