import { z } from "zod";

// Apart from the label tables (lib/format/replay-labels.ts), which the browser's chart module loads:
// only the server checks a URL segment, and zod stays out of that module.

const experimentId = z.guid();

/** Whether a URL segment can name an experiment at all (a canonical 8-4-4-4-12 hex uuid). */
export function isExperimentId(raw: string): boolean {
  return experimentId.safeParse(raw).success;
}
