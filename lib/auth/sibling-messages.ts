// What one web process tells the others of its instance (WEB_PROCESSES > 1, node:cluster) through the
// primary: a principal to forget at once. Without it a user deactivated, a key revoked or a session
// ended through one process would stay good in the others for up to PRINCIPAL_CACHE_TTL_MS.
import cluster from "node:cluster";
import { z } from "zod";

export const siblingMessageSchema = z.object({
  type: z.literal("boundary-lab:forget-principals"),
  forget: z.union([z.object({ userId: z.string() }), z.object({ apiKeyId: z.string() }), z.object({ all: z.literal(true) })]),
});
export type SiblingMessage = z.infer<typeof siblingMessageSchema>;
export type ForgetPrincipals = SiblingMessage["forget"];

/** Sends `forget` to the instance's other web processes; nothing when this process serves alone. */
export function tellSiblings(forget: ForgetPrincipals): void {
  if (cluster.isWorker) process.send?.({ type: "boundary-lab:forget-principals", forget } satisfies SiblingMessage);
}

/** Calls `handle` with what a sibling asks this process to forget. */
export function onSiblingMessage(handle: (forget: ForgetPrincipals) => void): void {
  if (!cluster.isWorker) return;
  process.on("message", (message: unknown) => {
    const parsed = siblingMessageSchema.safeParse(message);
    if (parsed.success) handle(parsed.data.forget);
  });
}
