import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Facts } from "@/components/ui/facts";
import { formatSinceStart } from "@/lib/format/time";
import type { OpenEffect } from "@/lib/generated/prisma/client";

const json = (value: unknown) => JSON.stringify(value, null, 2);
const STATUS_TONE = { completed: "success", failed: "danger", cancelled: "warning", unresolved: "neutral" } as const;

/**
 * Every Table C.1 field of one open-effects record, times as offsets from the run's start, and the
 * system evidence that resolved it (or "unresolved").
 */
export function OpenEffectRecord({ effect, runStartMs }: { effect: OpenEffect; runStartMs: number }) {
  const unresolved = effect.terminalStatus === "unresolved";
  const fields: [string, ReactNode][] = [
    ["Record id", <code key="id">{effect.id}</code>],
    ["Experiment", <code key="experiment">{effect.experimentId}</code>],
    ["Run", <code key="run">{effect.runId}</code>],
    ["Task", effect.taskId],
    ["Group", <code key="group">{effect.groupId}</code>],
    ["Trace position", effect.tracePosition],
    ["Action", <code key="action">{effect.action}</code>],
    [
      "Arguments",
      <pre key="args" className="text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">
        {json(effect.arguments)}
      </pre>,
    ],
    ["Initiated", formatSinceStart(effect.initiatedAtMs, runStartMs)],
    ["Resource", <code key="resource">{effect.resource}</code>],
    ["Controller", effect.controller],
    [
      "Observation handle",
      <code key="handle" data-testid="effect-handle">
        {effect.observationHandle}
      </code>,
    ],
    ["Status at the endpoint", effect.endpointStatus],
    [
      "Possible transitions",
      <pre key="transitions" className="text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">
        {json(effect.possibleTransitions)}
      </pre>,
    ],
    ["Relevant until", formatSinceStart(effect.relevantUntilMs, runStartMs)],
    ["Cross-run route", effect.crossRunRoute],
    [
      "Terminal status",
      <Badge key="terminal" tone={STATUS_TONE[effect.terminalStatus as keyof typeof STATUS_TONE] ?? "neutral"}>
        {effect.terminalStatus}
      </Badge>,
    ],
    ["Resolved", unresolved ? "unresolved" : formatSinceStart(effect.resolvedAtMs, runStartMs)],
  ];
  return (
    <section className="space-y-4 rounded-lg border border-border bg-card p-4 shadow-xs" aria-labelledby={`effect-${effect.id}`}>
      <h3 id={`effect-${effect.id}`} className="font-semibold [overflow-wrap:anywhere]">
        Operation <code>{effect.observationHandle}</code>: {effect.terminalStatus}
      </h3>
      <Facts items={fields} />
      <details open>
        <summary className="cursor-pointer text-sm font-medium">
          {unresolved ? "Unresolved: the evidence as it stood when the follow-up budget ran out" : "System evidence that resolved it"}
        </summary>
        <pre className="mt-2 max-h-96 overflow-auto rounded-md bg-muted p-3 text-xs" data-testid="terminal-evidence" tabIndex={0}>
          {json(effect.terminalEvidence)}
        </pre>
      </details>
    </section>
  );
}
