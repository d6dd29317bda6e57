// Three evaluations for the comparison tests (e2e/compare.spec.ts, the axe list in e2e/design.spec.ts),
// every run its own unit, each figure worked out in docs/statistics.md's comparison section:
// A 8/10, all final; B 20 runs, 9 unresolved (endpoint success) and 8 of 11 final runs successes,
// so reported 17/20, final-only 8/11, justified range 8/20 to 17/20; C 8/40, all final.
import { at } from "./evaluation-example";

export const COMPARISON_POLICY = { tools: { deploy: "async_handle" } } as const;

type Outcome = "success" | "failure" | "unresolved";

/** `outcomes` as runs of one task each a second apart; an unresolved run's deploy was pending at scoring though its endpoint label is success. */
function runs(prefix: string, outcomes: readonly Outcome[]) {
  return outcomes.map((outcome, i) => ({
    externalId: `${prefix}-${i + 1}`,
    taskId: `${prefix}-task-${i + 1}`,
    startedAt: at(2 * i),
    scoredAt: at(2 * i + 1),
    endpointLabel: outcome === "failure" ? "failure" : "success",
    ...(outcome === "unresolved"
      ? {
          effects: [
            {
              effectId: `${prefix}-deploy-${i + 1}`,
              tool: "deploy",
              handle: `job-${i + 1}`,
              requestedAt: at(2 * i),
              statusAtScoring: "pending",
            },
          ],
        }
      : {}),
  }));
}

const times = (n: number, outcome: Outcome): Outcome[] => Array.from({ length: n }, () => outcome);

export const comparisonExample = () => ({
  A: runs("a", [...times(8, "success"), ...times(2, "failure")]),
  B: runs("b", [...times(8, "success"), ...times(3, "failure"), ...times(9, "unresolved")]),
  C: runs("c", [...times(8, "success"), ...times(32, "failure")]),
});
