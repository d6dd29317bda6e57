// CPU time spent by process trees, from /proc (Linux): what a benchmark's servers spent per request,
// a figure that, unlike requests per second, does not move with how busy the machine's host is.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

interface ProcessTimes {
  parent: number;
  /** utime + stime + cutime + cstime: its own CPU and that of its children it has reaped. */
  ticks: number;
}

function processTimes(): Map<number, ProcessTimes> {
  const times = new Map<number, ProcessTimes>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited since the listing
    }
    // The fields after the command (which may hold spaces and parentheses): state, ppid, …, utime (14th field) to cstime (17th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    times.set(Number(entry), { parent: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime! });
  }
  return times;
}

/**
 * The CPU milliseconds that `root` and all its descendants have spent so far. A child that exits
 * and is reaped moves its time into its parent's, so the difference of two readings counts it once.
 */
export function treeCpuMs(root: number): number {
  const times = processTimes();
  const children = new Map<number, number[]>();
  for (const [pid, { parent }] of times) {
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  let ticks = 0;
  const pending = times.has(root) ? [root] : [];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    ticks += times.get(pid)!.ticks;
    pending.push(...(children.get(pid) ?? []));
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
