// One item PostgreSQL refuses must not cost the others their storage, nor a deadlock a batch. Validation at the edge
// (lib/http/storable.ts) checks what PostgreSQL is known to refuse; should something slip past it,
// the batch is halved until the item PostgreSQL refuses is alone, and the rest is stored.

/**
 * SQLSTATE classes that say the data was refused, not that the database failed: 22 (data
 * exception: a value out of range, an invalid character), 23 (integrity constraint violation) and
 * 54 (program limit exceeded: an index row too large). Anything else (a lost connection, a
 * deadlock, a timeout) fails the whole batch, to be retried as a whole.
 */
export function isDataRefusal(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

export interface Refusal<T> {
  item: T;
  error: Error & { code: string };
}

/**
 * Stores `items` with `store` (one transaction, all or nothing). When PostgreSQL refuses the data,
 * stores each half on its own, down to single items: the refused items come back with their error,
 * every other item is stored. A batch with one bad item costs about 2·log2(n) extra transactions.
 */
export async function storeIsolatingRefusals<T, R>(
  items: readonly T[],
  store: (items: readonly T[]) => Promise<R[]>,
): Promise<{ stored: R[]; refused: Refusal<T>[] }> {
  try {
    return { stored: await store(items), refused: [] };
  } catch (error) {
    if (!isDataRefusal(error)) throw error;
    if (items.length === 1) return { stored: [], refused: [{ item: items[0]!, error }] };
    const middle = Math.ceil(items.length / 2);
    const first = await storeIsolatingRefusals(items.slice(0, middle), store);
    const second = await storeIsolatingRefusals(items.slice(middle), store);
    return { stored: [...first.stored, ...second.stored], refused: [...first.refused, ...second.refused] };
  }
}

/** SQLSTATEs of a transaction PostgreSQL aborted to let another proceed: run again, it succeeds. */
const TRANSACTION_CONFLICTS = new Set(["40001", "40P01"]);

/**
 * `work` (one transaction), run again up to `attempts` times in all when PostgreSQL aborted it for a
 * deadlock or a serialization failure (an ingest batch and a record_traces pass both write an
 * evaluation's runs): the caller sees the conflict only if every attempt met one.
 */
export async function retryOnTransactionConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= attempts || typeof code !== "string" || !TRANSACTION_CONFLICTS.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}
