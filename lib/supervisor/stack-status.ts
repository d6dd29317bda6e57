import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * `npm start`'s status file (`<data dir>/stack.json`): the delayed-write service's URL, which
 * `npm run worker` reads, and the state of every supervised child, which /api/health reports.
 */
export const CHILD_STATES = ["starting", "running", "restarting", "crashed"] as const;

export const childStatusSchema = z.object({
  name: z.string().min(1),
  /** starting: first start, not ready yet; restarting: exited, waiting for its backoff or its new process to be ready; crashed: see restart-policy.ts. */
  state: z.enum(CHILD_STATES),
  pid: z.number().int().positive().nullable(),
  restarts: z.number().int().min(0),
  lastExit: z.object({ code: z.number().int().nullable(), signal: z.string().nullable(), at: z.iso.datetime() }).nullable(),
  /** When a restarting or crashed child is started again. */
  nextStartAt: z.iso.datetime().nullable(),
});
export type ChildStatus = z.infer<typeof childStatusSchema>;

export const stackStatusSchema = z.object({
  delayedWriteUrl: z.url(),
  /** The supervisor's own pid. */
  pid: z.number().int().positive(),
  updatedAt: z.iso.datetime(),
  children: z.array(childStatusSchema),
});
export type StackStatus = z.infer<typeof stackStatusSchema>;

export const stackStatusFile = (dataDir: string) => path.join(dataDir, "stack.json");

/** Written whole or not at all (a temp file renamed over the old one): a reader never sees half a file. */
export function writeStackStatus(file: string, status: StackStatus): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(status, null, 2));
  renameSync(temp, file);
}

/** The status file's contents, or null when there is none (no supervisor running). Throws when it is not a status file. */
export function readStackStatus(file: string): StackStatus | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return stackStatusSchema.parse(JSON.parse(text));
}
