// One scripted scenario of agent runs, sent into Boundary Lab five ways (the five-way test): each
// way's driver reads these runs and says them in its own words. Runs touch the ledger's accounts
// only through their calls' arguments: the policy's templates name the surfaces, the same on every
// way in. Each way's effect ids, handles and times are its own; the order of what happens is this.
import type { EffectPolicy } from "@/lib/evaluations/effect-policy-schema";

/** How a call is answered: it returns, or an MCP task (a handle) that completes before the run is scored, after it, or never. */
export type Answer = "returns" | "settles_before_scoring" | "settles_after_scoring" | "never_settles";

export interface ScenarioCall {
  tool: string;
  arguments: Record<string, string | number>;
  answer: Answer;
}

export interface ScenarioRun {
  externalId: string;
  taskId: string;
  /** Surfaces the harness resets, verified, before the run's first call. */
  verifiedResets?: string[];
  calls: ScenarioCall[];
  end: { endpointLabel: "success" | "failure"; terminalLabel?: "success" | "failure" } | { unscoredReason: string };
}

/** When the ledger server's task completes: at once (before the harness scores), once the test releases it after scoring, or never. */
const SETTLE: Record<Exclude<Answer, "returns">, "at_once" | "when_released" | "never"> = {
  settles_before_scoring: "at_once",
  settles_after_scoring: "when_released",
  never_settles: "never",
};

export const FIVE_WAY_POLICY: EffectPolicy = {
  tools: {
    read_account: { class: "read_only", reads: "acct:{account}" },
    deposit: { class: "sync_confirmed", writes: "acct:{account}" },
    transfer: { class: "async_handle", writes: "acct:{from}" },
    notify: "external",
    queue_job: "async_handle",
  },
};

const transfer = (from: string, answer: Exclude<Answer, "returns">): ScenarioCall => ({
  tool: "transfer",
  arguments: { from, amount: 5, settle: SETTLE[answer] },
  answer,
});
const returning = (tool: string, args: Record<string, string | number>): ScenarioCall => ({ tool, arguments: args, answer: "returns" });

export const SCENARIO: readonly ScenarioRun[] = [
  // A shared surface without a reset: r02 reads what r01 wrote (one unit, r02 exposed).
  {
    externalId: "r01-deposit-carol",
    taskId: "deposit",
    calls: [returning("deposit", { account: "carol", amount: 5 })],
    end: { endpointLabel: "success" },
  },
  {
    externalId: "r02-read-carol",
    taskId: "read",
    calls: [returning("read_account", { account: "carol" })],
    end: { endpointLabel: "success" },
  },
  // A verified reset between: r04 reads dave after the harness reset him (two units).
  {
    externalId: "r03-deposit-dave",
    taskId: "deposit",
    calls: [returning("deposit", { account: "dave", amount: 5 })],
    end: { endpointLabel: "failure" },
  },
  {
    externalId: "r04-reset-read-dave",
    taskId: "read",
    verifiedResets: ["acct:dave"],
    calls: [returning("read_account", { account: "dave" })],
    end: { endpointLabel: "success" },
  },
  // Every unresolved reason.
  {
    externalId: "r05-pending",
    taskId: "transfer",
    calls: [returning("read_account", { account: "gina" }), transfer("gina", "never_settles")],
    end: { endpointLabel: "success" },
  },
  { externalId: "r06-late", taskId: "transfer", calls: [transfer("hank", "settles_after_scoring")], end: { endpointLabel: "success" } },
  {
    externalId: "r07-never-resolved",
    taskId: "notify",
    calls: [returning("notify", { subject: "ivy" })],
    end: { endpointLabel: "failure" },
  },
  {
    externalId: "r08-unverifiable",
    taskId: "queue",
    calls: [returning("queue_job", { subject: "jobs" })],
    end: { endpointLabel: "success" },
  },
  {
    externalId: "r09-unclassified",
    taskId: "audit",
    calls: [returning("audit_log", { subject: "kim" }), returning("deposit", { account: "kim", amount: 1 })],
    end: { endpointLabel: "success" },
  },
  // Final by evidence: the task completed, read by its handle, before scoring.
  {
    externalId: "r10-evidence",
    taskId: "transfer",
    calls: [transfer("lena", "settles_before_scoring")],
    end: { endpointLabel: "success" },
  },
  // Never scored by the harness.
  {
    externalId: "r11-unscored",
    taskId: "read",
    calls: [returning("read_account", { account: "mona" })],
    end: { unscoredReason: "the scorer crashed" },
  },
  // The terminal label disagrees with the endpoint label.
  {
    externalId: "r12-disagreement",
    taskId: "deposit",
    calls: [returning("deposit", { account: "nina", amount: 5 })],
    end: { endpointLabel: "success", terminalLabel: "failure" },
  },
];

/** Evidence text for a task read by its handle. */
export const evidenceOf = (handle: string) => `${handle} read completed by its handle`;

// Times for the ways whose sender says when each thing happened (the ingest API, the live-run routes,
// OTLP): run i starts at minute i; a call j at second 1 + 2j, its answer then, a task settling
// before scoring a second after; a reset at second 0.5; scoring at second 20; a late settlement at 25.
const BASE_MS = Date.UTC(2026, 11, 1, 9, 0, 0);
export const timesOf = (runIndex: number) => {
  const start = BASE_MS + runIndex * 60_000;
  return {
    startMs: start,
    resetMs: start + 500,
    callMs: (j: number) => start + 1_000 + j * 2_000,
    settledBeforeMs: (j: number) => start + 2_000 + j * 2_000,
    scoredMs: start + 20_000,
    settledAfterMs: start + 25_000,
  };
};
export const iso = (ms: number) => new Date(ms).toISOString();
