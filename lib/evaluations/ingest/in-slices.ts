/**
 * `work` for each item, in order, handing the thread back to the event loop between slices of
 * SLICE items. The server's one thread serves every request: a batch validated or formatted in one
 * go held back the replies to the statements of the batch that holds the
 * evaluation's audit lock, and every batch of the evaluation waits on that one.
 */
export async function inSlices<T>(items: readonly T[], work: (item: T, index: number) => void): Promise<void> {
  const SLICE = 50;
  for (let index = 0; index < items.length; index++) {
    if (index > 0 && index % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    work(items[index]!, index);
  }
}
