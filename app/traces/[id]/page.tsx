import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Badge, StateBadge } from "@/components/ui/badge";
import { Panel } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/web-process-db";
import { getTrace, LINKED_RUNS_SHOWN } from "@/lib/traces/library";
import { traceIdSchema } from "@/lib/traces/trace-schemas";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Trace" };

const short = (value: unknown, max = 160) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

export default async function TracePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePermission("results:read", `/traces/${id}`);
  if (!traceIdSchema.safeParse({ id }).success) notFound();
  const trace = await getTrace(getDb(), id);
  if (!trace) notFound();
  const taskRef = `${trace.suite}/${trace.task}`;
  const imported = trace.source === "imported";
  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/traces", label: "Trace library" },
          imported
            ? { href: "/traces?source=imported", label: "imported runs" }
            : { href: `/traces?suite=${trace.suite}`, label: trace.suite },
        ]}
        title={<span data-testid="trace-title">{taskRef}</span>}
        meta={
          <>
            <span>{trace.kind} task</span>
            <span data-testid="trace-source">
              {imported ? "the tool calls of imported runs (first seen in this task)" : `AgentDojo ${trace.benchmarkVersion} ground truth`}
            </span>
            <span data-testid="trace-write-count">
              {trace.stateChangingCount} of {trace.callCount} calls change state
            </span>
          </>
        }
        description={<span className="whitespace-pre-line">{trace.prompt}</span>}
      />
      <div className="space-y-4">
        <Panel
          title="Calls, in order"
          description={
            trace.stateChangingCount > 0 ? (
              <>
                A replay answers read-only calls from the recorded results and sends each state-changing call to the delayed-write service
                as a write in its own key: <code>npm run replay -- --traces {imported ? trace.id : taskRef}</code>
              </>
            ) : (
              "No call changes state: there is nothing to replay."
            )
          }
        >
          <DataTable
            caption={`${trace.callCount} calls of ${taskRef}`}
            columns={["#", "Function", "Changes state", "Arguments", "Recorded result"]}
            numericColumns={[0]}
            testId="trace-calls"
          >
            {trace.calls.map((c, i) => (
              <tr key={i} data-state-changing={c.stateChanging ? "true" : "false"}>
                <Td numeric>{i + 1}</Td>
                <RowHead>
                  <code>{c.function}</code>
                </RowHead>
                <Td>
                  {c.stateChanging ? (
                    <Badge tone="warning">state-changing</Badge>
                  ) : (
                    <span className="text-muted-foreground">read-only</span>
                  )}
                </Td>
                <Td>
                  <code className="text-xs break-all">{short(c.args)}</code>
                </Td>
                <Td>
                  <span className="text-xs break-all">
                    {c.error ? (
                      `error: ${c.error}`
                    ) : c.result === null && imported ? (
                      <span className="text-muted-foreground">not recorded</span>
                    ) : (
                      short(c.result ?? "")
                    )}
                  </span>
                </Td>
              </tr>
            ))}
          </DataTable>
        </Panel>
        <Panel
          title={imported ? "Imported runs that made these calls" : "Imported runs of this task"}
          description={`${imported ? "Imported runs whose tool calls are this sequence (same functions and arguments, in order)" : `AgentDojo run logs imported with task id ${taskRef}`}: ${trace.linkedRuns.total} in all${trace.linkedRuns.total > LINKED_RUNS_SHOWN ? `, the newest ${LINKED_RUNS_SHOWN} shown` : ""}.`}
        >
          {trace.linkedRuns.runs.length === 0 ? (
            <p className="text-sm text-muted-foreground" data-testid="trace-no-runs">
              No imported run of this task yet (<Link href="/evaluations/import">import AgentDojo logs</Link>).
            </p>
          ) : (
            <DataTable
              caption={`Imported runs of ${taskRef}`}
              columns={["Run", "Evaluation", "Endpoint label", "Finality", "Tool calls"]}
              numericColumns={[4]}
              testId="trace-runs"
            >
              {trace.linkedRuns.runs.map((r) => (
                <tr key={r.id}>
                  <RowHead>
                    <Link href={`/evaluations/${r.evaluationId}/runs/${encodeURIComponent(r.externalId)}`}>{r.externalId}</Link>
                  </RowHead>
                  <Td>
                    <Link href={`/evaluations/${r.evaluationId}`}>{r.evaluationName}</Link>
                  </Td>
                  <Td>{r.endpointLabel ?? "none (unscored)"}</Td>
                  <Td>{r.finality}</Td>
                  <Td numeric>{r.toolCalls}</Td>
                </tr>
              ))}
            </DataTable>
          )}
        </Panel>
        <Panel title="Experiments that replayed it">
          {trace.experiments.length === 0 ? (
            <p className="text-sm text-muted-foreground">No experiment has replayed this trace yet.</p>
          ) : (
            <DataTable caption={`Experiments replaying ${taskRef}`} columns={["Experiment", "State", "Created"]} testId="trace-experiments">
              {trace.experiments.map((x) => (
                <tr key={x.id}>
                  <RowHead>
                    <Link href={`/experiments/${x.id}`}>{x.name ?? x.id}</Link>
                  </RowHead>
                  <Td>
                    <StateBadge state={x.state} />
                  </Td>
                  <Td>
                    <Time iso={x.createdAt.toISOString()} />
                  </Td>
                </tr>
              ))}
            </DataTable>
          )}
        </Panel>
      </div>
    </>
  );
}
