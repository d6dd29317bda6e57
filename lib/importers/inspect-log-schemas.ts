// An Inspect AI log's shape as this importer reads it (lib/testing/fixtures/inspect/README.md): the
// header (a `.json` log's fields or an `.eval`'s header.json), its samples, their events and messages.
// Loose objects: Inspect adds fields with its releases, and only these are read. Pure.
import { z } from "zod";

/** Inspect's log versions this importer reads (2 in `.json`, 2 or 3 in `.eval` headers). */
export const INSPECT_LOG_VERSIONS = [1, 2, 3];

const timeSchema = z.string().refine((s) => Number.isFinite(Date.parse(s)), "not a time");
/** A log-level time: Inspect writes `""` for one it has not recorded yet (a `.json` log's `stats` until its eval finishes). */
const logTimeSchema = z.preprocess((value) => (value === "" ? null : value), timeSchema.nullish());

export const inspectHeaderSchema = z.looseObject({
  version: z.number().int(),
  status: z.string(),
  eval: z.looseObject({
    task: z.string().min(1),
    task_id: z.string().nullish(),
    run_id: z.string().nullish(),
    model: z.string().nullish(),
    created: logTimeSchema,
    /** What the eval set out to run: its samples (and their ids) times its epochs. */
    dataset: z.looseObject({ samples: z.number().int().nonnegative().nullish(), sample_ids: z.array(z.unknown()).nullish() }).nullish(),
    config: z.looseObject({ epochs: z.number().int().positive().nullish() }).nullish(),
    /** The task's scorers, in order (newer logs). */
    scorers: z.array(z.looseObject({ name: z.string() })).nullish(),
  }),
  stats: z.looseObject({ started_at: logTimeSchema, completed_at: logTimeSchema }).nullish(),
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  /** How many samples the log says it completed (header.json, or the `.json` log). */
  results: z
    .looseObject({
      completed_samples: z.number().int().nonnegative().nullish(),
      /** The log's own figures per scorer (accuracy, mean, stderr...), as Inspect computed them over its scores. */
      scores: z
        .array(
          z.looseObject({
            /** The score's name: a sample's key in `scores`, or a key of a dict-valued scorer's value (its metrics given per key). */
            name: z.string(),
            /** The scorer that gave it (the name of the dict-valued scorer whose key `name` is). */
            scorer: z.string().nullish(),
            reducer: z.string().nullish(),
            metrics: z.record(z.string(), z.looseObject({ value: z.number().nullable() })).nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
});
export type InspectHeader = z.infer<typeof inspectHeaderSchema>;

const toolErrorSchema = z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish();
export const eventSchema = z.looseObject({ event: z.string(), timestamp: timeSchema.nullish() });
export const toolEventSchema = eventSchema.extend({
  id: z.string().nullish(),
  function: z.string(),
  arguments: z.record(z.string(), z.unknown()).nullish(),
  error: toolErrorSchema,
  /** The tool raised (Inspect 0.3.2xx): set without an `error` when the exception ended the sample. */
  failed: z.boolean().nullish(),
  completed: timeSchema.nullish(),
});
export const scoreEventSchema = eventSchema.extend({
  score: z.looseObject({ value: z.unknown() }),
  intermediate: z.boolean().nullish(),
  /** The scorer that gave it (newer logs). */
  scorer: z.string().nullish(),
});
export const messageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string().nullish(), function: z.string(), arguments: z.record(z.string(), z.unknown()).nullish() }))
    .nullish(),
  tool_call_id: z.string().nullish(),
  function: z.string().nullish(),
  error: toolErrorSchema,
});

export const inspectSampleSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  epoch: z.number().int().min(0),
  scores: z.record(z.string(), z.looseObject({ value: z.unknown() })).nullish(),
  messages: z.array(messageSchema).nullish(),
  events: z.array(eventSchema).nullish(),
  /** The sample raised (a model API error, a sandbox that failed): Inspect records the error instead of finishing it. */
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  /** The sample stopped on a declared budget (`{type: "message" | "token" | "time" | "working" | ..., limit}`). */
  limit: z.unknown().optional(),
  /** Older logs keep the timeline here instead of `events`. */
  transcript: z.looseObject({ events: z.array(eventSchema).nullish() }).nullish(),
});
export type InspectSample = z.infer<typeof inspectSampleSchema>;

/** A sample's key in a log: its id and epoch, as Inspect's summaries name it. */
export const sampleKeySchema = z.looseObject({ id: z.union([z.string(), z.number()]), epoch: z.number().int() });
export const sampleKey = (sample: { id: string | number; epoch: number }) => `${sample.id} epoch ${sample.epoch}`;

/** An Inspect `.json` log or `.eval` header, told by its own fields. */
export function looksLikeInspect(value: unknown): boolean {
  return typeof value === "object" && value !== null && "eval" in value && "version" in value && "status" in value;
}

/** A time as the run record keeps it (UTC, ISO 8601). */
export const iso = (time: string) => new Date(time).toISOString();
