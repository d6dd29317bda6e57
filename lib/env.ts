import { availableParallelism } from "node:os";
import { z } from "zod";

/** Server environment, parsed once. Every variable is optional: the defaults start an embedded stack. */
/** An empty variable (`DATABASE_URL=`) means unset, as shells and .env files write it. */
const optionalUrl = (protocol: RegExp) => z.preprocess((v) => (v === "" ? undefined : v), z.url({ protocol }).optional());

export const serverEnvSchema = z.object({
  DATABASE_URL: optionalUrl(/^postgres(ql)?$/),
  DELAYED_WRITE_URL: optionalUrl(/^https?$/),
  /** Folder for the embedded PostgreSQL's data when DATABASE_URL is unset. */
  BOUNDARY_LAB_DATA_DIR: z.string().min(1).default(".data"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /**
   * Signs sessions (Better Auth). `npm start` generates one into the data folder when unset; the web
   * app refuses to serve accounts without it.
   */
  BETTER_AUTH_SECRET: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32, "must be at least 32 characters").optional()),
  /** The origin browsers use to reach the web app; sign-in is refused from any other. Default http://localhost:PORT. */
  BOUNDARY_LAB_URL: optionalUrl(/^https?$/),
  /** Share links expire after this many days unless their creator chooses otherwise. */
  SHARE_LINK_DEFAULT_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  /**
   * Proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, or loopback / linklocal /
   * uniquelocal), comma-separated. Unset: none, and a client's address is its socket's peer.
   */
  TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((list) =>
      list
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean),
    ),
  /** Share-link openings per client address a minute (a token that opens nothing costs 6). */
  SHARE_LOOKUPS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** The address the web server listens on. */
  WEB_HOST: z.string().min(1).default("0.0.0.0"),
  /** The web server logs each time its one thread was held this long or longer (0: never): a request that blocks every other. */
  EVENT_LOOP_STALL_MS: z.coerce.number().int().min(0).max(60_000).default(100),
  /**
   * Web processes serving PORT together (node:cluster), each with its own thread: a page's rendering
   * holds one process's thread for ~25 ms, so one process uses one core. Default: the cores, at most 4.
   */
  WEB_PROCESSES: z.coerce
    .number()
    .int()
    .min(1)
    .max(32)
    .default(() => Math.min(availableParallelism(), 4)),
  /** Replay worker processes `npm start` supervises (0: workers run elsewhere, started with `npm run worker`). */
  REPLAY_WORKERS: z.coerce.number().int().min(0).max(32).default(1),
  /**
   * Set by `npm start` for the web app: the supervisor's status file (its children's states), which
   * /api/health reports. Unset when the web app runs unsupervised.
   */
  BOUNDARY_LAB_STACK_FILE: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(1).optional()),
});
export type ServerEnv = z.infer<typeof serverEnvSchema>;

/** The web app's own origin, as browsers reach it. */
export const baseUrlOf = (env: ServerEnv) => (env.BOUNDARY_LAB_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "");

type EnvSource = Record<string, string | undefined>;

/** Parses a process's environment with its schema; a wrong variable is named in the error. */
function parseEnv<Schema extends z.ZodType>(schema: Schema, source: EnvSource): z.infer<Schema> {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid environment: ${problems}`);
  }
  return parsed.data;
}

export function readServerEnv(source: EnvSource = process.env): ServerEnv {
  return parseEnv(serverEnvSchema, source);
}

/**
 * Units a replay worker replays at once by default. Lower than the in-process replay's 64: a worker
 * also fetches, completes and stores jobs on the same 2 cores, and at 64 its own lag reached the
 * 25 ms delay on this machine (docs/workers.md has the measurements).
 */
export const DEFAULT_WORKER_CONCURRENCY = 16;

/** A replay worker's environment (`npm run worker`): the server's, plus its own. */
export const workerEnvSchema = serverEnvSchema.extend({
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(DEFAULT_WORKER_CONCURRENCY),
  /** Its /healthz and /readyz; 0: any free port, printed in its ready line. */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** How long a stopping worker finishes its jobs before handing them back. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
});
export type WorkerEnv = z.infer<typeof workerEnvSchema>;

export function readWorkerEnv(source: EnvSource = process.env): WorkerEnv {
  return parseEnv(workerEnvSchema, source);
}

/** The delayed-write service's environment (`npm run delayed-write`): where it listens. */
export const delayedWriteEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  HOST: z.string().min(1).default("127.0.0.1"),
});
export type DelayedWriteEnv = z.infer<typeof delayedWriteEnvSchema>;

export function readDelayedWriteEnv(source: EnvSource = process.env): DelayedWriteEnv {
  return parseEnv(delayedWriteEnvSchema, source);
}
