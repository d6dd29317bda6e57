// Large Inspect `.json` logs for the importer's size tests, written at test time (never committed):
// the fixture log_formats.json's first sample repeated under new ids, each padded in a field the
// importer does not read, so that every sample is one run.
import { createWriteStream, readFileSync } from "node:fs";
import { INSPECT_LOGS } from "./importer-fixtures";

/**
 * An Inspect .json log of its own task (its runs' task ids start with `task/`; its evaluation is
 * named after it) with `samples` samples of 100 KB each (2,000: 200 MB), written in pieces, never
 * held whole; `cut` ends it inside one more sample.
 */
export async function writeLargeInspectLog(file: string, task: string, samples: number, cut = false): Promise<void> {
  const {
    samples: [sample],
    ...header
  } = JSON.parse(readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`, "utf8")) as {
    eval: Record<string, unknown>;
    samples: Record<string, unknown>[];
  };
  const out = createWriteStream(file);
  const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once("drain", resolve)));
  await write(`${JSON.stringify({ ...header, eval: { ...header.eval, task, task_id: task } }).slice(0, -1)}, "samples": [`);
  for (let k = 0; k < samples; k++)
    await write(`${k ? "," : ""}${JSON.stringify({ ...sample, id: k + 1, metadata: { padding: "p".repeat(100_000) } })}`);
  await write(cut ? ',{"id": 0, "epo' : "]}");
  await new Promise((resolve) => out.end(resolve));
}
