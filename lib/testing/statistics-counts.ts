// For the statistics tests only: one set of class counts whose every figure is computed by hand in the tests.
import type { ClassOutcomeCounts } from "../statistics/exclusion-rule";

/** 100 runs: completed 40 ✓ 30 ✗ 10 ?, agent failures 8 ✗, protocol stops 2 ✗ 3 ?, environment failures 1 ✓ 4 ?, missing evidence 2 ?. */
export const COUNTS: ClassOutcomeCounts = {
  completed: { success: 40, failure: 30, unresolved: 10 },
  agent_failure: { success: 0, failure: 8, unresolved: 0 },
  protocol_stop: { success: 0, failure: 2, unresolved: 3 },
  environment_failure: { success: 1, failure: 0, unresolved: 4 },
  missing_evidence: { success: 0, failure: 0, unresolved: 2 },
};
