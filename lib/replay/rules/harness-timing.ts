import { writesOf, type RunRecord } from "./records";

/**
 * The replay's own timing precondition for one unit. Every nonzero delay races something the
 * harness does: a finality trial's endpoint read (and, under verified cancellation, its cancel)
 * and a separation pair's initialisation of B must reach the service before the delayed write
 * comes due. A unit that missed it measured the harness's lag, not the policy: its labels would
 * flip for our sake. `cases` counts the races in the unit, `late` names each one lost.
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
        if (w.cancel && w.cancel.outcome !== "cancelled") late.push(`${w.ack.handle} cancellation after due`);
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
