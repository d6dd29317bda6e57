import { parseArgs } from "node:util";

export interface IntegerFlag {
  default: number;
  min: number;
  max: number;
  /** How the usage line names the value (default "N"). */
  value?: string;
}

/**
 * The flags of an `npm run bench:*` script: `--json FILE` and the integer flags it declares. A bad
 * flag prints the problem and the usage line, and exits 2.
 */
export function parseBenchFlags<F extends string>(bench: string, integers: Record<F, IntegerFlag>): { json?: string } & Record<F, number> {
  const flags = Object.entries<IntegerFlag>(integers);
  const usage = (problem: string): never => {
    const described = flags.map(([name, flag]) => ` [--${name} ${flag.value ?? "N"} (default ${flag.default})]`).join("");
    console.error(`${bench}: ${problem}\nusage: npm run ${bench} -- [--json FILE]${described}`);
    process.exit(2);
  };
  let values: Record<string, string | undefined>;
  try {
    const options = Object.fromEntries([
      ["json", { type: "string" as const }],
      ...flags.map(([name, flag]) => [name, { type: "string" as const, default: String(flag.default) }]),
    ]);
    ({ values } = parseArgs({ options, strict: true }) as { values: Record<string, string | undefined> });
  } catch (error) {
    return usage((error as Error).message);
  }
  const parsed: Record<string, number | string | undefined> = { json: values.json };
  for (const [name, flag] of flags) {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < flag.min || value > flag.max)
      usage(`--${name} must be an integer from ${flag.min} to ${flag.max}`);
    parsed[name] = value;
  }
  return parsed as { json?: string } & Record<F, number>;
}
