import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENTDOJO_READ_TOOLS, AGENTDOJO_SUITES, AGENTDOJO_WRITE_TOOLS } from "./agentdojo-tools";
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
  it.each(AGENTDOJO_SUITES)("%s: the writes are the ground truth's state_changing tools, every other tool reads", (suite) => {
    const { tools, tasks } = groundTruth.suites[suite]!;
    const calls = Object.values(tasks).flatMap((task) => task.trace);
    const stateChanging = new Set(calls.filter((c) => c.state_changing).map((c) => c.function));
    const readOnly = new Set(calls.filter((c) => !c.state_changing).map((c) => c.function));
    expect([...stateChanging].filter((t) => readOnly.has(t))).toEqual([]);
    expect(new Set(AGENTDOJO_WRITE_TOOLS[suite])).toEqual(new Set([...stateChanging, ...WRITES_IN_NO_TRACE.filter((t) => t in tools)]));
    expect(new Set([...AGENTDOJO_READ_TOOLS[suite], ...AGENTDOJO_WRITE_TOOLS[suite]])).toEqual(new Set(Object.keys(tools)));
    for (const tool of readOnly) expect(AGENTDOJO_READ_TOOLS[suite]).toContain(tool);
  });
});
