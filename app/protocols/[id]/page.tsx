import { EyeOff } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CodeBadge } from "@/components/review/code-badge";
import { CodeForm, ConsensusForm } from "@/components/review/code-form";
import { CodeHistory } from "@/components/review/code-history";
import { ProtocolForm } from "@/components/review/protocol-form";
import { buttonClass } from "@/components/ui/button";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Panel } from "@/components/ui/card";
import { Facts } from "@/components/ui/facts";
import { PageHeader } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/web-process-db";
import { FIELD_INFO, type ReviewCode } from "@/lib/review/codes";
import { ledgerDiff } from "@/lib/review/diff";
import { restsOnOneReviewer, reviewerCount } from "@/lib/review/table3";
import { viewerOf } from "@/lib/review/route-input";
import { protocolView } from "@/lib/review/views";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Protocol" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default async function ProtocolPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/protocols/${id}`);
  if (!UUID.test(id)) notFound();
  const view = await protocolView(getDb(), viewerOf(principal), id);
  if (!view) notFound();
  const retired = view.protocol.retired;
  // A retired protocol's record is kept as it was: no new codes or consensus.
  const codes = can(principal.role, "review:code") && !retired;
  const reconciles = can(principal.role, "review:reconcile") && !retired;
  const p = view.protocol;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/protocols", label: "Protocol review" }]}
        title={p.name}
        description={p.citation || p.scope || undefined}
        meta={
          <span className="inline-flex flex-wrap gap-2">
            {p.fromPaper ? <Badge>the paper&apos;s reference protocol</Badge> : <Badge tone="info">added by your team</Badge>}
            {retired ? <Badge tone="warning">retired</Badge> : null}
          </span>
        }
        actions={
          <Link href={`/protocols/${p.id}/completion-argument`} className={buttonClass({ variant: "primary", size: "sm" })}>
            Completion argument
          </Link>
        }
      />
      {!p.fromPaper ? (
        <Panel title="About this protocol" className="mb-8" data-testid="protocol-about">
          <div className="space-y-6">
            <Facts
              items={[
                ["Benchmark version", p.benchmarkVersion ?? "—"],
                ["Scope", p.scope ?? "—"],
                [
                  "Sources",
                  p.sources.length ? (
                    <ul key="s" className="space-y-1">
                      {p.sources.map((s) => (
                        <li key={s}>
                          <a href={s} rel="noreferrer">
                            {s}
                          </a>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    "—"
                  ),
                ],
                [
                  "Status",
                  retired && p.retiredAt ? (
                    <span key="retired">
                      retired <Time iso={p.retiredAt} />
                    </span>
                  ) : retired ? (
                    "retired"
                  ) : (
                    "active"
                  ),
                ],
              ]}
            />
            {can(principal.role, "protocol:write") ? <ProtocolForm key={p.version} existing={p} /> : null}
            {view.revisions.length ? (
              <div>
                <h3 className="text-sm font-semibold">History (newest first)</h3>
                <ol data-testid="protocol-history" className="mt-2 space-y-1 text-sm">
                  {[...view.revisions].reverse().map((r) => (
                    <li key={r.id}>
                      Version {r.version}, <Time iso={r.createdAt.toISOString()} />: {r.kind} — {r.reason}
                    </li>
                  ))}
                </ol>
              </div>
            ) : null}
          </div>
        </Panel>
      ) : null}
      {view.blind && codes ? (
        <Alert tone="info" role="note" data-testid="blind-notice" title="Blind coding" className="mb-6">
          <p className="flex items-center gap-2">
            <EyeOff aria-hidden="true" className="size-4" />
            Other reviewers&apos; codes (and the paper&apos;s) for this protocol appear once you have coded all three fields.
          </p>
        </Alert>
      ) : null}
      <div className="space-y-8">
        {view.fields.map((f) => (
          <Panel
            key={f.field}
            id={f.field}
            title={FIELD_INFO[f.field].label}
            description={FIELD_INFO[f.field].definition}
            data-testid={`field-${f.field}`}
          >
            <div className="space-y-6">
              <Facts
                items={[
                  [
                    "Consensus",
                    <span key="c" data-testid={`consensus-${f.field}`} className="inline-flex flex-wrap items-center gap-2">
                      {f.consensus ? (
                        <>
                          <CodeBadge code={f.consensus.code} />
                          <span>{f.consensus.rationale}</span>
                          {f.consensus.fromPaper ? <Badge>the paper&apos;s reference code</Badge> : null}
                          {restsOnOneReviewer(f.reviewers) ? (
                            <Badge tone="warning" data-testid="single-reviewer">
                              {reviewerCount(f.reviewers)}
                            </Badge>
                          ) : null}
                        </>
                      ) : (
                        <span data-testid={`consensus-hint-${f.field}`}>
                          uncoded: a consensus is set by a reconciler (an editor or admin) under Reconcile, usually once two reviewers have
                          coded the cell; {f.coders === 1 ? "1 reviewer has" : `${f.coders} reviewers have`} coded it so far.
                        </span>
                      )}
                    </span>,
                  ],
                  [
                    "Reviewers agree",
                    <span key="a" data-testid={`agree-${f.field}`}>
                      {f.agree === null ? "not yet comparable" : f.agree ? "yes" : "no"}
                    </span>,
                  ],
                ]}
              />
              {f.others.length ? (
                <DataTable
                  caption="Other codes of this cell"
                  columns={["Reviewer", "Code", "Source location", "Basis", "Citations", "Sources read"]}
                >
                  {f.others.map((o) => (
                    <tr key={o.id}>
                      <RowHead>{o.reviewer}</RowHead>
                      <Td>
                        <CodeBadge code={o.ledger.code as ReviewCode} />
                      </Td>
                      <Td>{o.ledger.sourceLocation}</Td>
                      <Td>{o.ledger.basis ?? "—"}</Td>
                      <Td>{o.ledger.citations.join("; ") || "—"}</Td>
                      <Td>{o.ledger.sourcesReadOn}</Td>
                    </tr>
                  ))}
                </DataTable>
              ) : null}
              {codes ? (
                <section className="space-y-3" aria-labelledby={`${f.field}-mine`}>
                  <h3 id={`${f.field}-mine`} className="text-sm font-semibold">
                    Your code
                  </h3>
                  <CodeForm
                    key={f.mine?.ledger.version ?? 0}
                    protocolId={view.protocol.id}
                    field={f.field}
                    current={f.mine?.ledger ?? null}
                  />
                </section>
              ) : null}
              {f.history.length ? (
                <section className="space-y-3" aria-labelledby={`${f.field}-history`}>
                  <h3 id={`${f.field}-history`} className="text-sm font-semibold">
                    History of your code <span className="font-normal text-muted-foreground">(newest first)</span>
                  </h3>
                  <CodeHistory
                    testId={`history-${f.field}`}
                    codeId={f.mine?.id ?? null}
                    currentVersion={f.mine?.ledger.version ?? null}
                    entries={[...f.history].reverse().map((h) => ({
                      id: h.id,
                      version: h.version,
                      kind: h.kind,
                      createdAt: h.createdAt.toISOString(),
                      reason: h.reason,
                      author: h.author,
                      diff: ledgerDiff(h.previous as Record<string, unknown> | null, h.next as Record<string, unknown>),
                    }))}
                  />
                </section>
              ) : null}
              {reconciles ? (
                <section className="space-y-3" aria-labelledby={`${f.field}-reconcile`}>
                  <h3 id={`${f.field}-reconcile`} className="text-sm font-semibold">
                    Reconcile
                  </h3>
                  <ConsensusForm
                    key={f.consensus?.version ?? 0}
                    protocolId={view.protocol.id}
                    field={f.field}
                    current={
                      f.consensus && {
                        code: f.consensus.code as ReviewCode,
                        rationale: f.consensus.rationale,
                        version: f.consensus.version,
                      }
                    }
                  />
                  {f.consensusHistory.length ? (
                    <div className="rounded-lg border border-border bg-card p-3">
                      <p className="text-sm font-medium">Consensus history (newest first)</p>
                      <ol data-testid={`consensus-history-${f.field}`} className="mt-2 space-y-1 text-sm">
                        {[...f.consensusHistory].reverse().map((h) => (
                          <li key={h.id}>
                            Version {h.version}, <Time iso={h.createdAt.toISOString()} />
                            {h.author ? ` by ${h.author}` : ""}: {h.reason} — {(h.next as { code: string }).code}
                          </li>
                        ))}
                      </ol>
                    </div>
                  ) : null}
                </section>
              ) : null}
            </div>
          </Panel>
        ))}
      </div>
    </>
  );
}
