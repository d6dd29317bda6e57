// Step 1 of ingestion: each run of a batch parsed on its own (zod), checked storable, and hashed; a
// bad run refuses only itself. No database: the batch's valid runs go on to storage (store.ts).
import { createHash } from "node:crypto";
import type { z } from "zod";
import { issueMessage } from "../../http/input";
import { findUnstorable, printable } from "../../http/storable";
import { runRecordSchema, type IngestResult, type RunRecord } from "../run-record-schema";
import { inSlices } from "./in-slices";

export interface ValidRun {
  index: number;
  run: RunRecord;
  hash: string;
}

/** A parsed run with its content hash: the same run sent again is found unchanged by it. */
export const validRun = (index: number, run: RunRecord): ValidRun => ({
  index,
  run,
  hash: createHash("sha256").update(JSON.stringify(run)).digest("hex"),
});

/** The first problem of a run that its schema refuses, named from the batch: `runs.3.effects.0.requestedAt`. */
function runError(index: number, error: z.ZodError): NonNullable<IngestResult["error"]> {
  const issue = error.issues[0]!;
  const path = [
    `runs`,
    index,
    ...issue.path.map((p) => printable(String(p))),
    ...(issue.code === "unrecognized_keys" ? [printable(issue.keys[0]!)] : []),
  ].join(".");
  const message = issue.code === "unrecognized_keys" ? `unknown field(s): ${issue.keys.map(printable).join(", ")}` : issueMessage(issue);
  return { code: "invalid_run", message: `${path}: ${message}`, field: path };
}

const externalIdOf = (raw: unknown): string | null =>
  raw && typeof raw === "object" && typeof (raw as { externalId?: unknown }).externalId === "string"
    ? (raw as { externalId: string }).externalId
    : null;
/** The externalId a refused run is reported under, escaped when it is itself what cannot be stored. */
const storableExternalIdOf = (raw: unknown): string | null => {
  const id = externalIdOf(raw);
  return id === null ? null : printable(id);
};

/** Parses every run; the second run with one externalId in a batch is refused (the first is kept). */
export async function validate(rawRuns: readonly unknown[]): Promise<{ results: IngestResult[]; valid: ValidRun[] }> {
  const results: IngestResult[] = [];
  const valid: ValidRun[] = [];
  const seen = new Set<string>();
  await inSlices(rawRuns, (raw, index) => {
    // The route's edge check passes over the runs (UnparsedItems): each is checked here, alone.
    const unstorable = findUnstorable(raw, ["runs", index]);
    if (unstorable) {
      const field = unstorable.path.join(".");
      results.push({
        externalId: storableExternalIdOf(raw),
        status: "error",
        error: { code: "invalid_run", message: `${field}: ${unstorable.message}`, field },
      });
      return;
    }
    const parsed = runRecordSchema.safeParse(raw);
    if (!parsed.success) {
      results.push({ externalId: externalIdOf(raw), status: "error", error: runError(index, parsed.error) });
      return;
    }
    const run = parsed.data;
    if (seen.has(run.externalId)) {
      const field = `runs.${index}.externalId`;
      results.push({
        externalId: run.externalId,
        status: "error",
        error: { code: "duplicate_in_batch", message: `${field}: externalId ${run.externalId} appears earlier in this batch`, field },
      });
      return;
    }
    seen.add(run.externalId);
    results.push({ externalId: run.externalId, status: "created" }); // settled after storage
    valid.push(validRun(index, run));
  });
  return { results, valid };
}
