import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { ingestRuns } from "../ingest/ingest-runs";
import { createEvaluation } from "../manage/create-evaluation";
import { effectShowsAWrite } from "../read-only-warning";
import type { RunRecord } from "../run-record-schema";
import { evaluationTools } from "./units-and-tools";

// Each tool's effects that show a write, counted by the effects' triggers as they are stored and re-sent:
// always what the pure rule (effectShowsAWrite) counts over the runs as they stand.
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
});
afterAll(async () => {
  await database?.drop();
});

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s)).toISOString();
type Effect = NonNullable<RunRecord["effects"]>[number];
const effect = (effectId: string, tool: string, shows: Partial<Effect>): Effect => ({
  effectId,
  tool,
  requestedAt: at(1),
  statusAtScoring: "completed",
  ...shows,
});

/** Run i's effects: every way an effect shows a write, and one that shows none, across three tools. */
function runOf(i: number, variant = 0): RunRecord {
  const tool = ["bank.transfer", "files.read", "mail.send"][(i + variant) % 3]!;
  return {
    externalId: `r${i}`,
    taskId: "t",
    startedAt: at(0),
    scoredAt: at(30),
    endpointLabel: "success",
    effects: [
      effect("none", tool, {}),
      effect("surface", tool, { surface: `db:rows/${i}` }),
      effect("handle", "files.read", i % 2 === variant % 2 ? { handle: `h-${i}` } : {}),
      effect("pending", "mail.send", i % 3 === 0 ? { statusAtScoring: "pending" } : { statusAtScoring: "failed" }),
    ],
  };
}

/** The rule's count of each tool's writes over `runs`. */
function writesByRule(runs: readonly RunRecord[]): Record<string, number> {
  const writes: Record<string, number> = {};
  for (const run of runs)
    for (const e of run.effects ?? [])
      writes[e.tool] =
        (writes[e.tool] ?? 0) +
        Number(effectShowsAWrite({ surface: e.surface ?? null, handle: e.handle ?? null, statusAtScoring: e.statusAtScoring }));
  return writes;
}

async function writesStored(evaluationId: string): Promise<Record<string, number>> {
  const tools = await evaluationTools(database.db, evaluationId, { tools: {} }, { countWrites: true });
  return Object.fromEntries(tools.map((t) => [t.tool, t.writes!]));
}

describe("each tool's effects showing a write", () => {
  it("are counted as the rule counts them when runs are stored, and re-sent changed, each evaluation apart", async () => {
    const id = await createEvaluation(database.db, { name: "tool writes" }, null);
    const other = await createEvaluation(database.db, { name: "tool writes, another" }, null);
    const runs = Array.from({ length: 12 }, (_, i) => runOf(i));
    await ingestRuns(database.db, id, runs, { traces: "caller" });
    await ingestRuns(database.db, other, runs.slice(0, 5), { traces: "caller" });
    const byRule = writesByRule(runs);
    expect(Object.values(byRule).some((n) => n > 0)).toBe(true);
    expect(await writesStored(id)).toEqual(byRule);

    // Re-sent with other effects: the old ones deleted, the new ones counted.
    const resent = runs.map((run, i) => (i % 4 === 0 ? runOf(i, 1) : run));
    await ingestRuns(database.db, id, resent, { traces: "caller" });
    expect(writesByRule(resent)).not.toEqual(byRule);
    expect(await writesStored(id)).toEqual(writesByRule(resent));
    expect(await writesStored(other)).toEqual(writesByRule(runs.slice(0, 5)));
  });
});
