import type { ReactNode } from "react";
import type { OpenEffect } from "@/lib/generated/prisma/client";
import { formatServiceMs } from "@/lib/dashboard/format";
import styles from "@/components/runs/runs.module.css";

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Every Table C.1 field of one open-effects record, and the system evidence that resolved it (or "unresolved"). */
export function OpenEffectRecord({ effect }: { effect: OpenEffect }) {
  const unresolved = effect.terminalStatus === "unresolved";
  const fields: [string, ReactNode][] = [
    ["Record id", <code key="id">{effect.id}</code>],
    ["Experiment", <code key="experiment">{effect.experimentId}</code>],
    ["Run", <code key="run">{effect.runId}</code>],
    ["Task", effect.taskId],
    ["Group", <code key="group">{effect.groupId}</code>],
    ["Trace position", effect.tracePosition],
    ["Action", <code key="action">{effect.action}</code>],
    ["Arguments", <pre key="args" className={styles.inlineJson}>{json(effect.arguments)}</pre>],
    ["Initiated (service ms)", formatServiceMs(effect.initiatedAtMs)],
    ["Resource", <code key="resource">{effect.resource}</code>],
    ["Controller", effect.controller],
    ["Observation handle", <code key="handle" data-testid="effect-handle">{effect.observationHandle}</code>],
    ["Status at the endpoint", effect.endpointStatus],
    ["Possible transitions", <pre key="transitions" className={styles.inlineJson}>{json(effect.possibleTransitions)}</pre>],
    ["Relevant until (service ms)", formatServiceMs(effect.relevantUntilMs)],
    ["Cross-run route", effect.crossRunRoute],
    ["Terminal status", <span key="terminal" className={unresolved ? styles.unresolved : undefined}>{effect.terminalStatus}</span>],
    ["Resolved (service ms)", unresolved ? "unresolved" : formatServiceMs(effect.resolvedAtMs)],
  ];
  return (
    <section className={styles.record} aria-labelledby={`effect-${effect.id}`}>
      <h3 id={`effect-${effect.id}`}>
        Operation <code>{effect.observationHandle}</code>: {effect.terminalStatus}
      </h3>
      <dl className="facts">
        {fields.map(([label, value]) => (
          <div key={label} className="fact">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h4>{unresolved ? "Unresolved: the evidence as it stood when the follow-up budget ran out" : "System evidence that resolved it"}</h4>
      <pre className="evidence-json" data-testid="terminal-evidence">
        {json(effect.terminalEvidence)}
      </pre>
    </section>
  );
}
