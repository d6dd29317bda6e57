import { z } from "zod";

/**
 * The delayed-write service's HTTP contract: one schema per boundary, used by the service to
 * validate requests and by the client to validate answers.
 */

export const MAX_DELAY_MS = 600_000;
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_WAIT_MS = 60_000;
export const MAX_KEYS_PER_NAMESPACE = 1_000;

const name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:\/-]+$/, "use letters, digits and . _ : / - only");

export const namespaceSchema = name;
export const keySchema = name;
/** Any JSON value except null, which the service reserves for "no value". */
export const storedValueSchema = z.json().refine((v) => v !== null, "value must not be null");

export const operationStatusSchema = z.enum(["pending", "completed", "failed", "cancelled"]);
export type OperationStatus = z.infer<typeof operationStatusSchema>;
export const TERMINAL_STATUSES: readonly OperationStatus[] = ["completed", "failed", "cancelled"];
/** A terminal operation never changes again: what the client waits for and the replay records. */
export function isTerminal(status: OperationStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export const writeRequestSchema = z.strictObject({
  namespace: namespaceSchema,
  key: keySchema,
  value: storedValueSchema,
  delayMs: z.number().int().min(0).max(MAX_DELAY_MS),
  mode: z.enum(["async", "sync"]),
});
export type WriteRequest = z.infer<typeof writeRequestSchema>;

export const operationSchema = z.object({
  handle: z.string(),
  namespace: z.string(),
  key: z.string(),
  value: z.json(),
  delayMs: z.number(),
  mode: z.enum(["async", "sync"]),
  status: operationStatusSchema,
  /** Service-clock milliseconds (monotonic, high resolution). */
  acceptedAtMs: z.number(),
  dueAtMs: z.number(),
  ackAtMs: z.number().nullable(),
  appliedAtMs: z.number().nullable(),
  cancelledAtMs: z.number().nullable(),
  failedAtMs: z.number().nullable(),
  failure: z.string().nullable(),
  /** appliedAtMs - acceptedAtMs once applied. */
  measuredDelayMs: z.number().nullable(),
});
export type Operation = z.infer<typeof operationSchema>;

export const writeResponseSchema = z.object({ operation: operationSchema, serviceTimeMs: z.number() });

export const operationResponseSchema = z.object({
  operation: operationSchema,
  /** True when a wait was requested and the operation was still pending when it ran out. */
  waitTimedOut: z.boolean(),
  serviceTimeMs: z.number(),
});

export const cancelOutcomeSchema = z.enum(["cancelled", "already_cancelled", "too_late_completed", "too_late_failed"]);
export type CancelOutcome = z.infer<typeof cancelOutcomeSchema>;
export const cancelResponseSchema = z.object({
  operation: operationSchema,
  outcome: cancelOutcomeSchema,
  serviceTimeMs: z.number(),
});

/** By exact namespace, or by namespace prefix (every namespace of one experiment, say). */
export const operationListQuerySchema = z
  .strictObject({
    namespace: namespaceSchema.optional(),
    prefix: namespaceSchema.optional(),
    status: operationStatusSchema.optional(),
  })
  .refine((q) => (q.namespace === undefined) !== (q.prefix === undefined), {
    message: "give exactly one of namespace or prefix",
    path: ["namespace"],
  });
export const operationListResponseSchema = z.object({
  operations: z.array(operationSchema),
  serviceTimeMs: z.number(),
});

export const operationQuerySchema = z.strictObject({
  // Digits only: z.coerce.number() alone would turn "" and " " into 0 and accept them.
  waitMs: z
    .string()
    .regex(/^\d+$/, "waitMs must be a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().min(0).max(MAX_WAIT_MS))
    .optional(),
});

export const valueQuerySchema = z.strictObject({ namespace: namespaceSchema, key: keySchema });

export const storedEntrySchema = z.object({
  key: z.string(),
  value: z.json(),
  version: z.number(),
  /** The operation handle that wrote it, or "initialise" / "reset". */
  writtenBy: z.string(),
  writtenAtMs: z.number(),
});
export type StoredEntry = z.infer<typeof storedEntrySchema>;

export const valueResponseSchema = z.object({
  namespace: z.string(),
  key: z.string(),
  entry: storedEntrySchema.nullable(),
  readAtMs: z.number(),
  serviceTimeMs: z.number(),
});

export const initialiseRequestSchema = z.strictObject({
  namespace: namespaceSchema,
  key: keySchema,
  value: storedValueSchema,
});

export const resetRequestSchema = z.strictObject({
  namespace: namespaceSchema,
  /** What the namespace should hold after the reset; empty clears it. */
  values: z
    .record(keySchema, storedValueSchema)
    .refine((values) => Object.keys(values).length <= MAX_KEYS_PER_NAMESPACE, `a namespace holds at most ${MAX_KEYS_PER_NAMESPACE} keys`)
    .default({}),
  /**
   * `purge` also forgets the namespace's terminal operations (its operation list and their handles),
   * so that a later run cannot read an earlier run's values there; pending ones stay and are counted.
   * `keep` (the default) leaves the operation history as evidence.
   */
  operations: z.enum(["keep", "purge"]).default("keep"),
});
export type ResetOperations = z.infer<typeof resetRequestSchema>["operations"];
export const resetResponseSchema = z.object({
  namespace: z.string(),
  /** Read back after the reset, not echoed from the request. */
  entries: z.array(storedEntrySchema),
  /** Operations still pending in the namespace: a reset does not hold while any can still land. */
  pendingOperations: z.number(),
  /** Terminal operations a purging reset forgot; absent when the reset kept them. */
  purgedOperations: z.number().optional(),
  resetAtMs: z.number(),
  serviceTimeMs: z.number(),
});

/** Every key a namespace holds, with its value: what a run that can read the namespace can find there. */
export const entriesQuerySchema = z.strictObject({ namespace: namespaceSchema });
export const entriesResponseSchema = z.object({
  namespace: z.string(),
  entries: z.array(storedEntrySchema),
  readAtMs: z.number(),
  serviceTimeMs: z.number(),
});

export const clockResponseSchema = z.object({ timeOrigin: z.number(), serviceTimeMs: z.number() });

export const errorResponseSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
