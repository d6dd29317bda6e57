// Why a run's recorded label is what it is, in words, from its condition, labels, exposure and the
// service evidence it stored. Pure: the run page and GET /api/v1/runs/:id show the same sentences.
import type { Operation } from "../../delayed-write/delayed-write-schemas";
import type { FinalityPolicy, SeparationCondition } from "../../replay/rules/config";
import { CONDITION_LABELS, POLICY_LABELS } from "../../format/replay-labels";
import { disagrees, type Label, type TerminalLabel } from "../../replay/rules/labels";
import {
  describeEntry,
  parseRunEvidence,
  roughMs,
  type FinalityRunEvidence,
  type ReadEvidence,
  type RunEvidence,
  type SeparationRunEvidence,
} from "./timeline";

export interface ExplainableRun {
  test: string;
  condition: string;
  delayMs: number;
  role: string;
  endpointLabel: string | null;
  terminalLabel: string | null;
  recordedLabel: string | null;
  exposure: boolean | null;
  finalAtScoring: boolean | null;
  classification: string;
  evidence: unknown;
}

export interface RunExplanation {
  /** The policy or condition, what the evidence showed, and the label that follows (a sentence or two). */
  summary: string;
  notes: string[];
}

/** Whether the endpoint and terminal labels agree; null when either is missing (no claim, or no endpoint read). */
export function agreementOf(endpoint: string | null, terminal: string | null): "agree" | "disagree" | null {
  if (endpoint === null || terminal === null) return null;
  return disagrees(endpoint as Label, terminal as TerminalLabel) ? "disagree" : "agree";
}

const label = (value: string | null) => value ?? "none";

/** Why the endpoint read saw what it saw. */
function endpointReason(ack: Operation, endpointRead: ReadEvidence | null, endpointLabel: string | null): string {
  if (ack.mode === "sync") return "the synchronous write was applied before the call returned";
  const dueAfterAck = `due +${roughMs(ack.dueAtMs - (ack.ackAtMs ?? ack.acceptedAtMs))} after acknowledgement`;
  // A read that came after the due time found the write applied: the harness's lag, which harness-timing.ts voids.
  if (ack.status === "pending" && endpointRead?.entry?.writtenBy === ack.handle)
    return `the write, pending at acknowledgement (${dueAfterAck}), was applied before the endpoint read ran`;
  if (ack.status === "pending") return `the write was still pending (${dueAfterAck})`;
  if (ack.status === "completed" && ack.delayMs === 0) return "the write was applied before the acknowledgement (delay 0 ms)";
  return `the endpoint read ${endpointLabel === "success" ? "held" : "did not hold"} the expected value (status at acknowledgement: ${ack.status})`;
}

/** How the operation ended, when followed by its handle. */
function terminalReason(op: Operation, terminalLabel: string | null): string {
  if (terminalLabel === "unresolved")
    return "the operation was still pending when the follow-up budget ran out (unresolved, which is not a failure)";
  if (op.status === "completed")
    return `the operation completed${op.measuredDelayMs === null ? "" : ` (applied ${roughMs(op.measuredDelayMs)} after its request)`}`;
  if (op.status === "cancelled") return "the operation was cancelled and never applied";
  if (op.status === "failed") return `the operation failed (${op.failure ?? "no reason given"})`;
  return `the operation was ${op.status}`;
}

function cancellationReason(ev: FinalityRunEvidence): string {
  const outcome = ev.cancel?.outcome;
  if (outcome === "cancelled") {
    return `cancelled the pending write before it was due, confirmed it by re-reading the operation by handle${ev.afterDue ? ` and again after its due time (still ${ev.afterDue.operation.status})` : ""}`;
  }
  if (outcome === "too_late_completed") {
    const why =
      ev.ack.mode === "sync"
        ? "a synchronous write is applied before the call returns"
        : ev.ack.delayMs === 0
          ? "delay 0 ms"
          : "it was already due";
    return `asked to cancel, but the write had already been applied (${why}): the service answered too late, completed`;
  }
  return `asked to cancel: the service answered ${outcome ?? "nothing recorded"}`;
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function explainFinality(run: ExplainableRun, ev: FinalityRunEvidence | null): string {
  const base = run.condition.replace(/^sync_/, "");
  const name = POLICY_LABELS[base as FinalityPolicy] ?? base;
  const policy = sentence(base === run.condition ? name : `${name} on the synchronous control`);
  const [E, T, R] = [label(run.endpointLabel), label(run.terminalLabel), label(run.recordedLabel)];
  const endpointWhy = ev
    ? endpointReason(ev.ack, ev.endpointRead, run.endpointLabel)
    : `the endpoint read ${E === "success" ? "held" : "did not hold"} the expected value`;
  const terminalWhy = ev
    ? terminalReason(ev.afterDue?.operation ?? ev.terminal, run.terminalLabel)
    : `the operation ended with terminal label ${T}`;
  const endpointAside = E !== T ? `; the endpoint label was ${E} because ${endpointWhy}` : "";
  switch (base) {
    case "snapshot":
      return `${policy} scored at the endpoint: ${endpointWhy}, so the endpoint label is ${E}${E === T ? ", as is the terminal label" : ` though the terminal label is ${T}`}; the recorded label is the endpoint label, ${R}.${E === T ? "" : ` Followed by its handle afterwards, ${terminalWhy}.`}`;
    case "reconciliation":
      return `${policy} followed the handle${run.terminalLabel === "unresolved" ? `, but ${terminalWhy}` : ` until ${terminalWhy}, then scored`}, so the recorded label is the terminal label, ${R}${endpointAside}.`;
    case "verified_cancellation":
      return `${policy} ${ev ? cancellationReason(ev) : "cancelled the write"}, then scored, so the recorded label is the terminal label, ${R}${endpointAside}.`;
    default:
      return `${policy}: endpoint label ${E}, terminal label ${T}, recorded label ${R}.`;
  }
}

/** What kept (or did not keep) A's write from the value B scored, by condition. */
function separationReason(condition: string, exposure: boolean | null, ev: SeparationRunEvidence | null, delayMs: number): string {
  if (exposure)
    return `A's write (${delayMs} ms delay) was still pending when B initialised its value and landed on it before B was scored`;
  switch (condition) {
    case "namespaced":
      return "A wrote in its own namespace, out of reach of B's value";
    case "verified_reset":
      return "after A's operation was terminal, the namespace was reset to B's initial value and read back with nothing pending before B began";
    case "b_before_a":
      return "B was initialised and scored before A requested its write";
    case "no_write":
      return "A issued no operation";
  }
  const applied = ev?.aTerminal?.appliedAtMs ?? null;
  const initialised = ev ? (ev.bInit.entry?.writtenAtMs ?? ev.bInit.readAtMs) : null;
  if (applied !== null && initialised !== null && applied < initialised)
    return `A's write was applied before B initialised its value (delay ${delayMs} ms), so B's initialisation replaced it`;
  return "A's write did not change the value B scored";
}

function explainSeparation(run: ExplainableRun, ev: SeparationRunEvidence | null): string {
  const condition = sentence(CONDITION_LABELS[run.condition as SeparationCondition] ?? run.condition);
  const [E, T, R] = [label(run.endpointLabel), label(run.terminalLabel), label(run.recordedLabel)];
  if (run.role === "A") {
    if (run.recordedLabel === null) return `${condition}: run A issues no operation, so it makes no claim and has no label.`;
    const terminalWhy = ev?.aTerminal ? terminalReason(ev.aTerminal, run.terminalLabel) : `its operation ended with terminal label ${T}`;
    const endpointWhy = ev?.aAck ? endpointReason(ev.aAck, ev.aEndpointRead, run.endpointLabel) : "of its endpoint read";
    return `${condition}: run A is scored once its own operation is terminal (the pair waits for it anyway): ${terminalWhy}, so its recorded label is the terminal label, ${R}${E !== T ? `; its endpoint label was ${E} because ${endpointWhy}` : ""}.`;
  }
  const scored = ev ? describeEntry(ev.bScoringRead.entry, ev.aAck?.handle ?? null) : "its value";
  return `${condition}: ${separationReason(run.condition, run.exposure, ev, run.delayMs)}; B scored ${scored}: ${run.exposure ? "exposure" : "no exposure"}, so B's label is ${R}.`;
}

function explainFailedUnit(run: ExplainableRun, ev: RunEvidence | null): string {
  const voided = ev?.serviceFailures.length ?? 0;
  if (run.classification === "agent_failure") {
    return "The service rejected the trace's write as invalid: the trace's fault, so the run is an agent failure, not retried, with no endpoint label and an unresolved recorded label.";
  }
  return `Every predeclared attempt failed (${voided} recorded: the service failed, or the harness was late for its own delay), so the run is stored as an environment failure with no endpoint label and an unresolved recorded label, counted apart in the run accounting.`;
}

/** Why the run's recorded label is what it is, and what else its labels say. */
export function explainRun(run: ExplainableRun): RunExplanation {
  const ev = parseRunEvidence(run.evidence);
  const failedUnit =
    ev?.kind === "environment_failure" || run.classification === "environment_failure" || run.classification === "agent_failure";
  const summary = failedUnit
    ? explainFailedUnit(run, ev)
    : run.test === "finality"
      ? explainFinality(run, ev?.kind === "finality" ? ev : null)
      : explainSeparation(run, ev?.kind === "separation" ? ev : null);

  const notes: string[] = [];
  const agreement = agreementOf(run.endpointLabel, run.terminalLabel);
  if (agreement)
    notes.push(
      `The endpoint and terminal labels ${agreement === "agree" ? "agree" : "disagree"} (${run.endpointLabel} / ${run.terminalLabel}).`,
    );
  // A failed unit was never scored: finality at scoring says nothing about it.
  if (run.finalAtScoring === false && !failedUnit)
    notes.push(
      "Not final at scoring: an operation that could change the scored value was still pending (or unresolved) when it was scored.",
    );
  if (run.classification === "protocol_stop")
    notes.push("Classified protocol stop: the declared follow-up budget ran out before the operation ended.");
  if (run.condition === "grouped") notes.push("Grouped analysis counts A and B of this pair as one unit.");
  if (ev === null)
    notes.push("The stored evidence is not in the shape this version reads; the explanation rests on the run's labels alone.");
  return { summary, notes };
}
