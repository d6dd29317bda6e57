import type { RunRecord } from "./records";

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
      if (ev.ack.mode !== "async" || ev.ack.delayMs === 0) continue;
      cases++;
      if (ev.endpointRead.readAtMs >= ev.ack.dueAtMs) late.push(`${ev.ack.handle} endpoint read ${(ev.endpointRead.readAtMs - ev.ack.dueAtMs).toFixed(3)} ms after due`);
      if (ev.cancel && ev.cancel.outcome !== "cancelled") late.push(`${ev.ack.handle} cancellation after due`);
    } else if (ev.kind === "separation" && run.role === "B") {
      // B-before-A and verified reset do not race A's write: B is scored first, or after a verified reset.
      if (!ev.aAck || ev.aAck.delayMs === 0 || run.condition === "b_before_a" || run.condition === "verified_reset") continue;
      cases++;
      if (!ev.bInit.entry || ev.bInit.entry.writtenAtMs >= ev.aAck.dueAtMs) late.push(`${run.groupId} B initialised after A's write was due`);
    }
  }
  return { cases, late };
}
