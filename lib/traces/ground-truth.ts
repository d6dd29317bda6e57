// AgentDojo's ground-truth file (lib/testing/fixtures/agentdojo/README.md): every task's own
// tool-call trace, made by running its `ground_truth()` without a model. Read into library rows here,
// pure; lib/traces/library.ts stores them.
import { z } from "zod";
import { AGENTDOJO_SUITES } from "./agentdojo-tools";

const groundTruthCallSchema = z.object({
  function: z.string().min(1),
  args: z.record(z.string(), z.json()),
  state_changing: z.boolean(),
  result: z.string().nullable(),
  error: z.string().nullable(),
});

export const groundTruthFileSchema = z.object({
  benchmark_version: z.string().min(1),
  suites: z.partialRecord(
    z.enum(AGENTDOJO_SUITES),
    z.object({
      tasks: z.record(
        z.string().min(1),
        z.object({
          kind: z.enum(["user", "injection"]),
          prompt_or_goal: z.string(),
          trace: z.array(groundTruthCallSchema),
        }),
      ),
    }),
  ),
});
export type GroundTruthFile = z.infer<typeof groundTruthFileSchema>;

/** One call of a library trace, in order; `stateChanging` is what the ground truth marks. */
export const libraryCallSchema = z.object({
  function: z.string(),
  args: z.record(z.string(), z.json()),
  result: z.string().nullable(),
  error: z.string().nullable(),
  stateChanging: z.boolean(),
});
export type LibraryCall = z.infer<typeof libraryCallSchema>;

export interface LibraryTraceRow {
  source: "ground_truth";
  benchmarkVersion: string;
  suite: (typeof AGENTDOJO_SUITES)[number];
  task: string;
  kind: "user" | "injection";
  prompt: string;
  calls: LibraryCall[];
  callCount: number;
  stateChangingCount: number;
}

/** Every task of the file as a library row, suites and tasks in a stable order (suite, then task number). */
export function groundTruthTraces(file: GroundTruthFile): LibraryTraceRow[] {
  const rows: LibraryTraceRow[] = [];
  for (const suite of AGENTDOJO_SUITES) {
    const tasks = file.suites[suite]?.tasks ?? {};
    for (const task of Object.keys(tasks).sort(byTaskNumber)) {
      const t = tasks[task]!;
      const calls = t.trace.map((c) => ({
        function: c.function,
        args: c.args,
        result: c.result,
        error: c.error,
        stateChanging: c.state_changing,
      }));
      rows.push({
        source: "ground_truth",
        benchmarkVersion: file.benchmark_version,
        suite,
        task,
        kind: t.kind,
        prompt: t.prompt_or_goal,
        calls,
        callCount: calls.length,
        stateChangingCount: calls.filter((c) => c.stateChanging).length,
      });
    }
  }
  return rows;
}

/** user_task_2 before user_task_10: by kind, then by the task's number. */
export function byTaskNumber(a: string, b: string): number {
  const key = (t: string) => [t.replace(/_\d+$/, ""), Number(/_(\d+)$/.exec(t)?.[1] ?? -1)] as const;
  const [ka, na] = key(a);
  const [kb, nb] = key(b);
  return ka === kb ? na - nb : ka < kb ? 1 : -1; // "user_task" before "injection_task"
}
