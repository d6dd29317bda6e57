import { describe, expect, it } from "vitest";
import type { Principal } from "../auth/principal";
import { contentHash } from "../content-hash";
import { createEvaluation } from "../evaluations/manage/create-evaluation";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { DEFAULT_EVALUATION_RULE, declarationOf } from "../statistics/exclusion-rule";
import { exclusionRuleIdentity } from "../statistics/exclusion-rule-hash";
import { loadShareContent, type ComparisonShareContent, type ExperimentShareContent, type RunShareContent } from "./resources";
import { createShareLinkSchema, listShareLinksQuerySchema } from "./share-link-schemas";
import {
  createShareLink,
  listShareLinks,
  openShareLink,
  revokeShareLink,
  setShareLinksDisabled,
  visibleShareLinks,
  type ShareLinkView,
} from "./share-links";
import { hashShareToken } from "./token";
import {
  DAY,
  DEFAULTS,
  HOUR,
  T0,
  afterTokenLookup,
  alice,
  at,
  bob,
  carol,
  db,
  expectOk,
  expectRefusal,
  input,
  iso,
  principal,
  root,
  seedExperiment,
  useOf,
  useShareLinkDatabase,
} from "../testing/share-link-fixtures";

// Share links on a real PostgreSQL: comparisons, deleted resources, what is stored, revoking, listing, and races with a revoke.

useShareLinkDatabase();
describe("share links on the embedded PostgreSQL", () => {
  it("shares a comparison of evaluations: frozen under its one rule with the snapshot's hash, listed by its ids, gone when one is deleted", async () => {
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
    // One evaluation deleted: both links are gone, the frozen one too (deleting an evaluation takes back what was shared of it: docs/accounts.md, Share links).
    await db.evaluation.delete({ where: { id: first } });
    expect(await openShareLink(db, live.token, at(2 * HOUR))).toEqual({ status: "gone" });
    expect(await openShareLink(db, frozen.token, at(2 * HOUR))).toEqual({ status: "gone" });
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
