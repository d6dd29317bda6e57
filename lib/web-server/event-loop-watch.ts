// The web server's one thread serves every request: a request that holds it holds back all the
// others (a tool pattern matched with backtracking once held it for seconds, /api/health meanwhile
// too: docs/accounts.md, Hardening). A timer that should fire every TICK_MS measures how late it fires; a late tick is a hold.
import { performance } from "node:perf_hooks";

export const TICK_MS = 10;

/** Calls `onStall(ms)` whenever the thread was held at least `thresholdMs` (0: never). Unref'd: it keeps no process alive. */
export function watchEventLoop(thresholdMs: number, onStall: (heldMs: number) => void): () => void {
  if (thresholdMs <= 0) return () => {};
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const held = now - last - TICK_MS;
    last = now;
    if (held >= thresholdMs) onStall(Math.round(held));
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The line the web server logs for a hold, and its reading (bench:hostile attributes them to requests). */
export const stallLine = (heldMs: number) => `web: the event loop was held for ${heldMs} ms`;
export const STALL_LINE = /web: the event loop was held for (\d+) ms/;
