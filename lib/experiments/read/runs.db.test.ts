import { describe, expect, it } from "vitest";
import { type RunFilters } from "./filters";
import { listRuns } from "./runs";
import {
  TIME_ORIGIN,
  allPages,
  compareNaturalKey,
  db,
  experimentId,
  ids,
  matching,
  otherExperimentId,
  stored,
  useStoredRunGrid,
} from "../../testing/run-list-fixtures";

// listRuns on one stored experiment (lib/testing/run-list-fixtures.ts): every filter against the oracle, and keyset pagination.
// The export, the run detail and the view: runs-export-detail.db.test.ts.

useStoredRunGrid();

describe("listRuns filters", () => {
  const cases: RunFilters[] = [
    {},
    { condition: "snapshot" },
    { condition: "shared" },
    { condition: "verified_reset" },
    { delay: 0 },
    { delay: 25 },
    { delay: 100 },
    { role: "single" },
    { role: "A" },
    { role: "B" },
    { label: "success" },
    { label: "failure" },
    { label: "unresolved" },
    { label: "none" },
    { agreement: "agree" },
    { agreement: "disagree" },
    { exposure: "exposed" },
    { exposure: "unexposed" },
    { classification: "completed" },
    { classification: "protocol_stop" },
    { classification: "environment_failure" },
    { condition: "snapshot", delay: 25, agreement: "disagree" },
    { role: "B", exposure: "unexposed", label: "success" },
  ];
  for (const filters of cases) {
    it(`narrows to exactly the matching runs: ${JSON.stringify(filters)}`, async () => {
      const expected = matching(filters);
      const page = await listRuns(db, experimentId, { filters, limit: 500 });
      expect(ids(page.runs)).toEqual(ids(expected));
      expect(page.total).toBe(expected.length);
      expect(page.nextCursor).toBeNull();
    });
  }

  it("has matches and misses for every filter value the cases use (the fixture is not degenerate)", () => {
    for (const filters of cases.slice(1)) {
      const n = matching(filters).length;
      if (filters.condition !== "verified_reset" && filters.delay !== 100) expect(n, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(n, JSON.stringify(filters)).toBeLessThan(stored.length);
    }
  });

  it("never shows another experiment's runs", async () => {
    const page = await listRuns(db, experimentId, { filters: {}, limit: 500 });
    expect(page.total).toBe(72);
    expect(page.runs.every((r) => r.experimentId === experimentId)).toBe(true);
    expect((await listRuns(db, otherExperimentId, { filters: {}, limit: 500 })).total).toBe(24);
  });
});

describe("listRuns pagination", () => {
  for (const [filters, limit] of [
    [{}, 7],
    [{}, 1],
    [{ role: "B" }, 5],
    [{ agreement: "disagree" }, 4],
    [{ delay: 25, label: "failure" }, 3],
  ] as const) {
    it(`returns every matching run exactly once, in natural-key order: ${JSON.stringify(filters)} by ${limit}`, async () => {
      const pages = await allPages(filters, limit);
      expect(new Set(pages.map((r) => r.id)).size).toBe(pages.length);
      expect(ids(pages)).toEqual(ids(matching(filters)));
      expect([...pages].sort(compareNaturalKey)).toEqual(pages);
      // Stable: the same listing in one page has the same order.
      expect((await listRuns(db, experimentId, { filters, limit: 500 })).runs.map((r) => r.id)).toEqual(pages.map((r) => r.id));
    });
  }

  it("ends with a null cursor exactly when the last row is shown", async () => {
    const total = matching({ role: "single" }).length;
    const exact = await listRuns(db, experimentId, { filters: { role: "single" }, limit: total });
    expect(exact.runs).toHaveLength(total);
    expect(exact.nextCursor).toBeNull();
    expect((await listRuns(db, experimentId, { filters: { role: "single" }, limit: total - 1 })).nextCursor).not.toBeNull();
  });

  it("shows each run's labels, agreement and times, with its wall-clock start from the service's clock origin", async () => {
    const page = await listRuns(db, experimentId, { filters: { condition: "snapshot", delay: 25, role: "single" }, limit: 1 });
    const run = page.runs[0]!;
    expect(run).toMatchObject({
      condition: "snapshot",
      delayMs: 25,
      scheduleId: 1,
      repetition: 1,
      endpointLabel: "failure",
      terminalLabel: "success",
      recordedLabel: "failure",
      agreement: "disagree",
      exposure: null,
    });
    expect(run.startedAt).toBe(new Date(TIME_ORIGIN + run.startedAtMs).toISOString());
    expect(run.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const elsewhere = await listRuns(db, otherExperimentId, { filters: {}, limit: 1 });
    expect(elsewhere.runs[0]!.startedAt).toBeNull(); // that experiment recorded no service clock origin
  });
});
