import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CodeForm, ConsensusForm, RestoreForm } from "@/components/review/code-form";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { CODE_INFO, FIELD_INFO, type ReviewCode } from "@/lib/review/codes";
import { ledgerDiff } from "@/lib/review/diff";
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
  const codes = can(principal.role, "review:code");
  const reconciles = can(principal.role, "review:reconcile");
  return (
    <>
      <p>
        <Link href="/protocols">Protocol review</Link>
      </p>
      <h1>{view.protocol.name}</h1>
      <p className="muted">{view.protocol.citation}</p>
      {view.blind && codes ? (
        <p className="panel" role="note" data-testid="blind-notice">
          Blind coding: other reviewers&apos; codes (and the paper&apos;s) for this protocol appear once you have coded all three fields.
        </p>
      ) : null}
      {view.fields.map((f) => (
        <section key={f.field} aria-labelledby={`${f.field}-title`} data-testid={`field-${f.field}`}>
          <h2 id={`${f.field}-title`}>{FIELD_INFO[f.field].label}</h2>
          <p className="muted">{FIELD_INFO[f.field].definition}</p>
          <dl className="facts">
            <dt>Consensus</dt>
            <dd data-testid={`consensus-${f.field}`}>
              {f.consensus ? `${f.consensus.code} (${CODE_INFO[f.consensus.code].label}): ${f.consensus.rationale}` : "uncoded"}
              {f.consensus?.fromPaper ? " [the paper's reference code]" : ""}
            </dd>
            <dt>Reviewers agree</dt>
            <dd data-testid={`agree-${f.field}`}>{f.agree === null ? "not yet comparable" : f.agree ? "yes" : "no"}</dd>
          </dl>
          {f.others.length ? (
            <div className="table-scroll">
              <table>
                <caption>Other codes of this cell</caption>
                <thead>
                  <tr>
                    <th scope="col">Reviewer</th>
                    <th scope="col">Code</th>
                    <th scope="col">Source location</th>
                    <th scope="col">Basis</th>
                    <th scope="col">Citations</th>
                    <th scope="col">Sources read</th>
                  </tr>
                </thead>
                <tbody>
                  {f.others.map((o) => (
                    <tr key={o.id}>
                      <th scope="row">{o.reviewer}</th>
                      <td>{o.ledger.code}</td>
                      <td>{o.ledger.sourceLocation}</td>
                      <td>{o.ledger.basis ?? "—"}</td>
                      <td>{o.ledger.citations.join("; ") || "—"}</td>
                      <td>{o.ledger.sourcesReadOn}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {codes ? (
            <>
              <h3>Your code</h3>
              <CodeForm protocolId={view.protocol.id} field={f.field} current={f.mine?.ledger ?? null} />
            </>
          ) : null}
          {f.history.length ? (
            <>
              <h3>History of your code</h3>
              <ol data-testid={`history-${f.field}`}>
                {f.history.map((h) => (
                  <li key={h.id}>
                    Version {h.version} ({h.kind}), {h.createdAt.toISOString()}: {h.reason}
                    <ul>
                      {ledgerDiff(h.previous as Record<string, unknown> | null, h.next as Record<string, unknown>).map((d) => (
                        <li key={d.key}>
                          {d.key}: <del>{d.before}</del> → <ins>{d.after}</ins>
                        </li>
                      ))}
                    </ul>
                    {f.mine && h.version < f.mine.ledger.version ? <RestoreForm codeId={f.mine.id} version={h.version} /> : null}
                  </li>
                ))}
              </ol>
            </>
          ) : null}
          {reconciles ? (
            <>
              <h3>Reconcile</h3>
              <ConsensusForm protocolId={view.protocol.id} field={f.field} current={f.consensus && { code: f.consensus.code as ReviewCode, rationale: f.consensus.rationale, version: f.consensus.version }} />
              {f.consensusHistory.length ? (
                <ol data-testid={`consensus-history-${f.field}`}>
                  {f.consensusHistory.map((h) => (
                    <li key={h.id}>
                      Version {h.version}, {h.createdAt.toISOString()}: {h.reason} — {(h.next as { code: string }).code}
                    </li>
                  ))}
                </ol>
              ) : null}
            </>
          ) : null}
        </section>
      ))}
    </>
  );
}
