import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENTDOJO_READ_TOOLS, AGENTDOJO_STATE_CHANGING_READS, AGENTDOJO_SUITES, AGENTDOJO_WRITE_TOOLS } from "./agentdojo-tools";
import { SHARED_FIXTURES } from "../testing/importer-fixtures";

interface GroundTruth {
  suites: Record<
    string,
    { tools: Record<string, unknown>; tasks: Record<string, { trace: { function: string; state_changing: boolean }[] }> }
  >;
}
const groundTruth = JSON.parse(readFileSync(`${SHARED_FIXTURES}agentdojo/ground_truth_v1.2.1.json`, "utf8")) as GroundTruth;
/** Writes no ground-truth trace exercises: state-changing in AgentDojo's code (its README's list). */
const WRITES_IN_NO_TRACE = ["cancel_calendar_event", "reserve_car_rental", "reserve_restaurant"];

describe("AgentDojo's tool registry", () => {
  it.each(AGENTDOJO_SUITES)(
    "%s: the writes are the ground truth's state_changing tools and the reads that change state, every other tool reads",
    (suite) => {
      const { tools, tasks } = groundTruth.suites[suite]!;
      const calls = Object.values(tasks).flatMap((task) => task.trace);
      const stateChanging = new Set(calls.filter((c) => c.state_changing).map((c) => c.function));
      const readOnly = new Set(calls.filter((c) => !c.state_changing).map((c) => c.function));
      expect([...stateChanging].filter((t) => readOnly.has(t))).toEqual([]);
      const stateChangingReads = Object.keys(AGENTDOJO_STATE_CHANGING_READS[suite]);
      // The reads that change state are ones the ground truth calls read-only (else they would need no exception).
      for (const tool of stateChangingReads) expect(readOnly.has(tool) && tool in tools, tool).toBe(true);
      expect(new Set(AGENTDOJO_WRITE_TOOLS[suite])).toEqual(
        new Set([...stateChanging, ...WRITES_IN_NO_TRACE.filter((t) => t in tools), ...stateChangingReads]),
      );
      expect(new Set([...AGENTDOJO_READ_TOOLS[suite], ...AGENTDOJO_WRITE_TOOLS[suite]])).toEqual(new Set(Object.keys(tools)));
      expect(AGENTDOJO_READ_TOOLS[suite].filter((t) => AGENTDOJO_WRITE_TOOLS[suite].includes(t))).toEqual([]);
      for (const tool of readOnly) if (!stateChangingReads.includes(tool)) expect(AGENTDOJO_READ_TOOLS[suite]).toContain(tool);
    },
  );
});

describe("docs/agentdojo-tools.md", () => {
  it("lists every tool of every suite once, with the class the imported policy gives it", () => {
    const doc = readFileSync(new URL("../../docs/agentdojo-tools.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| (\w+) \| `(\w+)` \| (\w+) \|/gm)].map((m) => [m[1], m[2], m[3]]);
    const expected = AGENTDOJO_SUITES.flatMap((suite) => [
      ...AGENTDOJO_READ_TOOLS[suite].map((tool) => [suite, tool, "read_only"]),
      ...AGENTDOJO_WRITE_TOOLS[suite].map((tool) => [suite, tool, "sync_confirmed"]),
    ]);
    const key = (row: (string | undefined)[]) => row.join(" ");
    expect(rows.map(key).sort()).toEqual(expected.map(key).sort());
  });
});
