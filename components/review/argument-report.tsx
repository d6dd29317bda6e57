import { CircleCheck, CircleDashed, TriangleAlert } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Badge, StateBadge } from "@/components/ui/badge";
import { Panel } from "@/components/ui/card";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { QUESTIONS, ROUTE_KIND_LABELS, TREATMENT_LABELS, type CompletionArgument, type EvidenceLink } from "@/lib/review/completion-schema";
import { evidenceKey, type ArgumentStatus, type EvidenceState } from "@/lib/review/completion-status";

// A completion argument read-only: on its page and on a shared link of it.

type Evidence = Record<
  string,
  EvidenceState & {
    label: string;
    at?: string;
    href?: string | null;
    audit?: { runs: number; final: number; analysisUnits: number; scored?: number };
  }
>;

function LinkItem({ link, evidence, linkable }: { link: EvidenceLink; evidence: Evidence; linkable: boolean }) {
  const item = evidence[evidenceKey(link)];
  const kind = link.kind.replace("_", " ");
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5" data-testid="evidence-link">
      <span className="text-muted-foreground">{kind}</span>
      {item?.exists && item.href && linkable ? <a href={item.href}>{item.label}</a> : <span>{item?.label ?? link.id}</span>}
      {item?.at ? (
        <span className="text-muted-foreground">
          created <Time iso={item.at} relative={false} />
        </span>
      ) : null}
      {item?.state ? <StateBadge state={item.state} /> : null}
      {item?.audit ? (
        <span className="text-xs text-muted-foreground">
          {item.audit.scored === undefined
            ? `final ${item.audit.final}/${item.audit.runs} runs`
            : `final ${item.audit.final}/${item.audit.scored} scored runs${item.audit.runs > item.audit.scored ? ` (${item.audit.runs} stored)` : ""}`}
          , {item.audit.analysisUnits} analysis units
        </span>
      ) : null}
      {link.note ? <span>— {link.note}</span> : null}
    </span>
  );
}

/** At a glance: which questions are answered, which routes lack a treatment or evidence, and the flags. */
export function ArgumentGlance({ argument, status }: { argument: CompletionArgument; status: ArgumentStatus }) {
  const routeName = (i: number) => `${i + 1}. ${argument.routes[i]!.description}`;
  return (
    <Panel title="At a glance" className="mb-8" data-testid="argument-glance">
      <div className="space-y-4">
        <p className="text-sm" data-testid="questions-answered">
          Questions answered: {status.answered}/{status.of}
        </p>
        <ul className="grid gap-2 text-sm sm:grid-cols-2">
          {status.questions.map((q) => (
            <li key={q.key} className="flex items-start gap-2" data-testid={`glance-${q.key}`}>
              {q.answered ? (
                <CircleCheck aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-success" />
              ) : (
                <CircleDashed aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
              )}
              <span>
                Question {q.number}:{" "}
                {q.answered
                  ? q.ledgerComplete
                    ? "answered, with its ledger"
                    : "answered; its ledger lacks a source location or date"
                  : "not answered"}
              </span>
            </li>
          ))}
        </ul>
        <p className="text-sm" data-testid="routes-lacking-treatment">
          Routes without a treatment:{" "}
          {status.routesLackingTreatment.length ? status.routesLackingTreatment.map(routeName).join("; ") : "none"}
        </p>
        <p className="text-sm" data-testid="routes-lacking-evidence">
          Treated routes without evidence:{" "}
          {status.routesLackingEvidence.length ? status.routesLackingEvidence.map(routeName).join("; ") : "none"}
        </p>
        {status.flags.length ? (
          <Alert tone="warning" role="note" title="Where the argument and the review codes disagree, or the evidence does not stand">
            <ul className="list-disc space-y-1 pl-5" data-testid="argument-flags">
              {status.flags.map((f, i) => (
                <li key={i} data-rule={f.rule}>
                  {f.message}
                </li>
              ))}
            </ul>
          </Alert>
        ) : (
          <p className="flex items-center gap-2 text-sm" data-testid="argument-flags-none">
            <CircleCheck aria-hidden="true" className="size-4 text-success" /> No flags: the argument agrees with the review codes.
          </p>
        )}
      </div>
    </Panel>
  );
}

/** The four answers with their ledgers, the routes and the evidence. */
export function ArgumentBody({
  argument,
  evidence,
  linkable = true,
}: {
  argument: CompletionArgument;
  evidence: Evidence;
  linkable?: boolean;
}) {
  return (
    <div className="space-y-6">
      {QUESTIONS.map((q) => {
        const a = argument.questions[q.key];
        return (
          <Panel key={q.key} id={`q-${q.key}`} title={`${q.number}. ${q.text}`} data-testid={`answer-${q.key}`}>
            <div className="space-y-4">
              {a.answer ? (
                <p className="whitespace-pre-wrap text-sm">{a.answer}</p>
              ) : (
                <p className="text-sm text-muted-foreground">Not answered.</p>
              )}
              {a.answer ? (
                <p className="text-xs text-muted-foreground">
                  Source: {a.sourceLocation || "not given"} · citations: {a.citations.join("; ") || "none"} · sources read:{" "}
                  {a.sourcesReadOn ?? "not given"}
                </p>
              ) : null}
              {q.key === "remaining" ? (
                argument.routes.length ? (
                  <DataTable
                    caption="Routes by which work can remain active or affect another run"
                    testId="argument-routes"
                    columns={["#", "Route", "Description", "Scope", "Treatment", "Evidence"]}
                  >
                    {argument.routes.map((r, i) => (
                      <tr key={i}>
                        <RowHead>{i + 1}</RowHead>
                        <Td>{ROUTE_KIND_LABELS[r.kind]}</Td>
                        <Td className="max-w-xs">{r.description}</Td>
                        <Td>{r.scope === "in" ? "in" : `out: ${r.scopeReason}`}</Td>
                        <Td>
                          {r.treatment === "unresolved" ? (
                            <Badge tone="warning">
                              <TriangleAlert aria-hidden="true" className="mr-1 inline size-3" />
                              {TREATMENT_LABELS[r.treatment]}
                            </Badge>
                          ) : (
                            TREATMENT_LABELS[r.treatment]
                          )}
                          {r.treatmentNote ? <p className="text-xs text-muted-foreground">{r.treatmentNote}</p> : null}
                        </Td>
                        <Td>
                          {r.evidence.length ? (
                            <ul className="space-y-1">
                              {r.evidence.map((l, j) => (
                                <li key={j}>
                                  <LinkItem link={l} evidence={evidence} linkable={linkable} />
                                </li>
                              ))}
                            </ul>
                          ) : (
                            <em className="text-muted-foreground">none</em>
                          )}
                        </Td>
                      </tr>
                    ))}
                  </DataTable>
                ) : (
                  <p className="text-sm text-muted-foreground">No routes listed.</p>
                )
              ) : null}
              {q.key === "finality" ? (
                <div>
                  <h3 className="text-sm font-semibold">Evidence</h3>
                  {argument.evidence.length ? (
                    <ul className="mt-2 space-y-1 text-sm" data-testid="argument-evidence">
                      {argument.evidence.map((l, j) => (
                        <li key={j}>
                          <LinkItem link={l} evidence={evidence} linkable={linkable} />
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <p className="mt-2 text-sm text-muted-foreground">No evidence linked.</p>
                  )}
                </div>
              ) : null}
            </div>
          </Panel>
        );
      })}
    </div>
  );
}
