import { writesOf, type RunRecord } from "./records";

/**
 * The replay's own timing precondition for one unit. Every nonzero delay races something the
 * harness does: a finality trial's endpoint read (and, under verified cancellation, its cancel)
 * and a separation pair's initialisation of B must reach the service before the delayed write
 * comes due, each judged by the service's own clock (when it read, cancelled or initialised). A
 * unit that missed it measured the harness's lag, not the policy: its labels would flip for our
 * sake. `cases` counts the races in the unit, `late` names each one lost.
 */
export function harnessLateness(runs: RunRecord[]): { cases: number; late: string[] } {
  const late: string[] = [];
  let cases = 0;
  for (const run of runs) {
    const ev = run.evidence;
    if (ev.kind === "finality") {
      // Each write of the trace races the endpoint, which is the last of the trial's endpoint reads (a
      // snapshot scores there): with several writes, the first may come due while a later one is read.
      const writes = writesOf(ev);
      const endpointMs = Math.max(...writes.map((w) => w.endpointRead.readAtMs));
      for (const w of writes) {
        if (w.ack.mode !== "async" || w.ack.delayMs === 0) continue;
        cases++;
        if (endpointMs >= w.ack.dueAtMs) late.push(`${w.ack.handle} endpoint read ${(endpointMs - w.ack.dueAtMs).toFixed(3)} ms after due`);
        if (w.cancel) {
          // Judged by when the service took the cancellation, not by its answer: a starved service applies a
          // write late, so a cancellation that came after the due time can still find it pending and answer
          // "cancelled" where the schedule had already landed it (a cancellation that lost the race, read as won).
          const cancelledAtMs = w.cancel.outcome === "cancelled" ? w.cancel.confirmed.cancelledAtMs : null;
          if (cancelledAtMs === null) late.push(`${w.ack.handle} cancellation after due (${w.cancel.outcome})`);
          else if (cancelledAtMs >= w.ack.dueAtMs)
            late.push(
              `${w.ack.handle} cancellation ${(cancelledAtMs - w.ack.dueAtMs).toFixed(3)} ms after due, still pending on a late service`,
            );
        }
      }
    } else if (ev.kind === "separation" && run.role === "B") {
      // B-before-A and verified reset do not race A's write: B is scored first, or after a verified reset.
      if (run.condition === "b_before_a" || run.condition === "verified_reset") continue;
      for (const w of writesOf(ev)) {
        if (!w.aAck || w.aAck.delayMs === 0) continue;
        cases++;
        if (!w.bInit.entry || w.bInit.entry.writtenAtMs >= w.aAck.dueAtMs)
          late.push(`${run.groupId} B initialised ${w.key} after A's write was due`);
      }
    }
  }
  return { cases, late };
}
