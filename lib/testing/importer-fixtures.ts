// Where the importer tests find their logs: the real AgentDojo and Inspect fixtures (copied into
// lib/testing/fixtures/ with their READMEs and licences, so a clean clone tests alone), and the hand-made variants.
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { ImportedLog } from "../importers/imported-log";
import type { InspectOptions } from "../importers/inspect";
import { readLogFile } from "../importers/log-file";

export const SHARED_FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const AGENTDOJO_RUNS = `${SHARED_FIXTURES}agentdojo/runs/`;
export const INSPECT_LOGS = `${SHARED_FIXTURES}inspect/`;
export const HAND_MADE = fileURLToPath(new URL("../importers/fixtures/", import.meta.url));

/** One log file's runs; a zip of several logs is removed and refused (the tests that want one use readLogFile). */
export async function importLogFile(file: string, options: InspectOptions = {}): Promise<ImportedLog> {
  const read = await readLogFile(file, options);
  if ("dir" in read) {
    await rm(read.dir, { recursive: true, force: true });
    throw new Error("a zip of several log files, not one log");
  }
  return read;
}
