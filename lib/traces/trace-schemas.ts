// The trace library's boundaries: its list query, a trace id, and a selection of traces to replay
// (by suite, by task, or by id). One schema each, shared by the API, the pages, the form and the CLI.
import { z } from "zod";
import { AGENTDOJO_SUITES } from "./agentdojo-tools";
import { cursorOf, oneOf, optional, pageSize } from "../http/pagination";
import { int4 } from "../http/storable";

export const TRACE_KINDS = ["user", "injection"] as const;
export const TRACE_SOURCES = ["ground_truth", "imported"] as const;
export const SOURCE_LABELS: Record<(typeof TRACE_SOURCES)[number], string> = { ground_truth: "ground truth", imported: "imported run" };

export const traceIdSchema = z.strictObject({ id: z.uuid("id must be a trace id (a UUID)") });

/** Traces are listed by suite, kind and task number: the keyset position is (suite, kind, task order, id). */
export const traceCursorSchema = z.tuple([z.string(), z.string(), int4("cursor", -1), z.string(), z.uuid()]);

/** GET /api/v1/traces and /traces: filtered by source, suite, kind, task, and whether the trace has a state-changing call. */
export const traceListQuerySchema = z.strictObject({
  source: optional(oneOf("source", TRACE_SOURCES)),
  suite: optional(oneOf("suite", AGENTDOJO_SUITES)),
  kind: optional(oneOf("kind", TRACE_KINDS)),
  task: optional(z.string("task must be text").trim().min(1).max(200, "task must be at most 200 characters")),
  writes: optional(oneOf("writes", ["with", "without"] as const)),
  cursor: optional(cursorOf(traceCursorSchema)),
  limit: pageSize,
});
export type TraceListQuery = z.infer<typeof traceListQuerySchema>;

/** A task as runs name it: `suite/task`, e.g. `banking/user_task_3`. */
export const taskRefSchema = z
  .string("a task must be text")
  .regex(new RegExp(`^(${AGENTDOJO_SUITES.join("|")})/[A-Za-z0-9_]{1,100}$`), "a task must be suite/task_id, e.g. banking/user_task_3");

/**
 * Library traces to replay: every ground-truth user task of a suite with at least one state-changing
 * call, the ground-truth traces of some tasks, or traces by id. Exactly one of the three.
 */
const bySuite = z.strictObject({ suite: oneOf("traceSelection.suite", AGENTDOJO_SUITES) });
const byTasks = z.strictObject({
  tasks: z
    .array(taskRefSchema)
    .min(1, "traceSelection.tasks must name a task")
    .max(200)
    .refine((l) => new Set(l).size === l.length, "traceSelection.tasks must not repeat"),
});
const byIds = z.strictObject({
  ids: z
    .array(z.uuid("traceSelection.ids must be trace ids (UUIDs)"))
    .min(1, "traceSelection.ids must name a trace")
    .max(200)
    .refine((l) => new Set(l).size === l.length, "traceSelection.ids must not repeat"),
});
export const traceSelectionSchema = z.union(
  [bySuite, byTasks, byIds],
  "traceSelection must be {suite}, {tasks: [suite/task, …]} or {ids: [trace id, …]}",
);
export type TraceSelection = z.infer<typeof traceSelectionSchema>;

export class SelectorError extends Error {}

/**
 * The CLI's `--traces`: `ground-truth:SUITE`, or a comma-separated list of trace ids, or of tasks
 * (`banking/user_task_3,banking/user_task_4`).
 */
export function parseTraceSelector(text: string): TraceSelection {
  const suite = /^ground-truth:(.*)$/.exec(text.trim());
  const parts = text.split(",").map((p) => p.trim());
  const parsed = suite
    ? bySuite.safeParse({ suite: suite[1] })
    : parts.every((p) => z.uuid().safeParse(p).success)
      ? byIds.safeParse({ ids: parts })
      : byTasks.safeParse({ tasks: parts });
  if (!parsed.success) {
    const detail = parsed.error.issues[0]!.message;
    throw new SelectorError(
      `"${text}": ${detail} (expected ground-truth:SUITE with SUITE one of ${AGENTDOJO_SUITES.join(", ")}, trace ids, or tasks like banking/user_task_3)`,
    );
  }
  return parsed.data;
}
