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
});
export type ServerEnv = z.infer<typeof serverEnvSchema>;

export function readServerEnv(source: Record<string, string | undefined> = process.env): ServerEnv {
  const parsed = serverEnvSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid environment: ${problems}`);
  }
  return parsed.data;
}
