import { parseArgs } from "node:util";
import { parseTraceSelector, SelectorError, type TraceSelection } from "../traces/trace-schemas";
import { replayConfigSchema, type ReplayConfig } from "../replay/rules/config";

export class UsageError extends Error {}

const intList = (flag: string, text: string) =>
  text.split(",").map((part) => {
    const n = Number(part.trim());
    if (part.trim() === "" || !Number.isInteger(n))
      throw new UsageError(`--${flag}: "${part}" is not an integer (expected e.g. 0,25,100,250)`);
    return n;
  });
const int = (flag: string, text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new UsageError(`--${flag}: "${text}" is not an integer`);
  return n;
};

export interface ReplayArgs {
  config: ReplayConfig;
  jsonFile: string | null;
  /** `--traces`: library traces to replay instead of the paper's one (resolved against the library by the command). */
  traces: TraceSelection | null;
}

/** Parses `npm run replay` flags into a validated config; any problem is a UsageError naming the flag. */
export function parseReplayArgs(argv: string[]): ReplayArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        json: { type: "string" },
        delays: { type: "string" },
        schedules: { type: "string" },
        repetitions: { type: "string" },
        concurrency: { type: "string" },
        "environment-failure-retries": { type: "string" },
        "harness-late-retries": { type: "string" },
        traces: { type: "string" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const input = {
    ...(values.delays !== undefined && { delaysMs: intList("delays", values.delays) }),
    ...(values.schedules !== undefined && { schedules: int("schedules", values.schedules) }),
    ...(values.repetitions !== undefined && { repetitions: int("repetitions", values.repetitions) }),
    ...(values.concurrency !== undefined && { concurrency: int("concurrency", values.concurrency) }),
    ...(values["environment-failure-retries"] !== undefined && {
      environmentFailureRetries: int("environment-failure-retries", values["environment-failure-retries"]),
    }),
    ...(values["harness-late-retries"] !== undefined && {
      harnessLateRetries: int("harness-late-retries", values["harness-late-retries"]),
    }),
  };
  const parsed = replayConfigSchema.safeParse(input);
  if (!parsed.success) {
    const flagOf: Record<string, string> = {
      delaysMs: "delays",
      environmentFailureRetries: "environment-failure-retries",
      harnessLateRetries: "harness-late-retries",
    };
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "");
    throw new UsageError(`--${flagOf[field] ?? field}: ${issue.message}`);
  }
  if (values.json === "") throw new UsageError("--json: give a file name");
  let traces: TraceSelection | null = null;
  try {
    traces = values.traces === undefined ? null : parseTraceSelector(values.traces);
  } catch (error) {
    if (error instanceof SelectorError) throw new UsageError(`--traces: ${error.message}`);
    throw error;
  }
  return { config: parsed.data, jsonFile: values.json ?? null, traces };
}
