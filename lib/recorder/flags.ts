// `npm run mcp:record` flags and environment, one zod schema each (the CLI, workers/mcp-record.ts).
import path from "node:path";
import { z } from "zod";

export const recorderFlagsSchema = z
  .strictObject({
    evaluation: z.uuid("--evaluation must be an evaluation id (a UUID)"),
    run: z
      .string("--run must name the run (its externalId)")
      .trim()
      .min(1, "--run must not be empty")
      .max(200, "--run must be at most 200 characters"),
    task: z.string().trim().min(1, "--task must not be empty").max(200, "--task must be at most 200 characters").optional(),
    api: z.url("--api must be a URL, e.g. http://localhost:3000").optional(),
    spool: z.string().min(1, "--spool must name a folder").default(path.join(".data", "mcp-spool")),
    "poll-bound-seconds": z.coerce
      .number("--poll-bound-seconds must be a number")
      .int("--poll-bound-seconds must be a whole number")
      .min(1, "--poll-bound-seconds must be at least 1")
      .max(86_400, "--poll-bound-seconds must be at most 86400")
      .default(600),
    // Streamable HTTP mode: listen here, forward to the MCP server's endpoint at --upstream.
    listen: z.coerce
      .number("--listen must be a port number")
      .int("--listen must be a whole number")
      .min(0, "--listen must be a port from 0 (any free port) to 65535")
      .max(65_535, "--listen must be a port from 0 (any free port) to 65535")
      .optional(),
    upstream: z
      .url({ protocol: /^https?$/, error: "--upstream must be the MCP server's http(s) endpoint, e.g. http://localhost:8080/mcp" })
      .optional(),
    host: z.string().min(1, "--host must name an interface, e.g. 127.0.0.1").default("127.0.0.1"),
  })
  .refine((flags) => (flags.listen === undefined) === (flags.upstream === undefined), {
    message: "--listen and --upstream go together (the Streamable HTTP mode)",
    path: ["listen"],
  });
export type RecorderFlags = z.infer<typeof recorderFlagsSchema>;

export const recorderEnvSchema = z.object({
  BOUNDARY_LAB_API_KEY: z.string("set BOUNDARY_LAB_API_KEY to an API key (npm run apikey:create, or Account → API keys)").min(1),
  BOUNDARY_LAB_URL: z.url("BOUNDARY_LAB_URL must be a URL").default("http://localhost:3000"),
});

/** The spool file of one run: one folder per evaluation, one file per run (its name made safe for a file system). */
export const spoolFileOf = (flags: Pick<RecorderFlags, "spool" | "evaluation" | "run">) =>
  path.join(flags.spool, flags.evaluation, `${encodeURIComponent(flags.run)}.jsonl`);
