import type { DelayedWriteClient } from "../../delayed-write/delayed-write-client";

/**
 * Exercises every request the replay makes, at the replay's concurrency, before any trial starts:
 * both processes compile their hot paths and the client opens its connections. Without it the
 * first trials meet a cold service that answers tens of milliseconds late, which is the replay's
 * own lag, not the policy under test. Warm-up operations live under their own prefix and are not runs.
 */
export async function warmUp(client: DelayedWriteClient, prefix: string, concurrency: number, rounds = 4): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      Array.from({ length: concurrency }, async (_, i) => {
        const namespace = `${prefix}/warmup/${round}/${i}`;
        const value = { warmup: true, round, i };
        const zero = await client.write({ namespace, key: "k0", value, delayMs: 0, mode: "async" });
        const later = await client.write({ namespace, key: "k1", value, delayMs: 2, mode: "async" });
        await client.write({ namespace, key: "k2", value, delayMs: 1, mode: "sync" });
        await client.read(namespace, "k0");
        await client.operation(later.operation.handle, 1_000);
        await client.cancel(zero.operation.handle);
        await client.initialise(namespace, "k3", value);
        await client.reset(namespace, { k3: value });
        await client.operations(namespace);
      }),
    );
  }
}
