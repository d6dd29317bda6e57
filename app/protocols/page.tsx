import type { Metadata } from "next";
import Link from "next/link";
import { MatrixTable, Table3Table } from "@/components/review/matrix-report";
import { ShareButton } from "@/components/share-button";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { CODE_INFO, FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS } from "@/lib/review/codes";
import { matrixShow, viewerOf } from "@/lib/review/route-input";
import { matrixView } from "@/lib/review/views";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Protocol review" };

export default async function ProtocolsPage({ searchParams }: { searchParams: Promise<{ show?: string }> }) {
  const principal = await requirePagePermission("results:read", "/protocols");
  const show = (await searchParams).show ?? "consensus";
  const view = await matrixView(getDb(), viewerOf(principal), matrixShow(show, principal));
  const reconciles = can(principal.role, "review:reconcile");
  const tabs: [string, string][] = [
    ["consensus", "Consensus"],
    ["paper", "The paper's codes"],
    ...(can(principal.role, "review:code") ? [["mine", "My codes"] as [string, string]] : []),
    ...(reconciles ? view.reviewers.filter((r) => r.id !== principal.userId).map((r) => [r.id, r.email] as [string, string]) : []),
  ];
  return (
    <>
      <h1>Protocol review</h1>
      <p className="muted">
        What ten public protocols document about the evaluation boundary (the paper&apos;s section 5). Codes: {REVIEW_CODES.map((c) => `${c} ${CODE_INFO[c].label.toLowerCase()}`).join(", ")}.
      </p>
      <nav aria-label="Matrix view" className="actions">
        {tabs.map(([key, label]) => (
          <Link key={key} href={`/protocols?show=${encodeURIComponent(key)}`} aria-current={show === key ? "page" : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      <MatrixTable protocols={view.protocols} matrix={view.matrix} caption={`Codes per protocol and field (${tabs.find(([k]) => k === show)?.[1] ?? "consensus"})`} />
      {can(principal.role, "share:create") ? <ShareButton resourceType="protocol_matrix" /> : null}

      <h2>Table 3, computed from the consensus</h2>
      <Table3Table rows={view.table3} />

      <h2>Agreement between reviewers</h2>
      <p className="muted">Over the protocols whose codes you may see (a reviewer sees others&apos; codes of a protocol once they have coded all of it); the paper&apos;s codes are not a reviewer here.</p>
      <div className="table-scroll">
        <table data-testid="agreement">
          <caption>Agreement per field</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Reviewers</th>
              <th scope="col">Protocols all coded</th>
              <th scope="col">Percent agreement</th>
              <th scope="col">Kappa</th>
              <th scope="col">Disagreeing cells</th>
            </tr>
          </thead>
          <tbody>
            {REVIEW_FIELDS.map((f) => {
              const a = view.agreement[f];
              return (
                <tr key={f}>
                  <th scope="row">{FIELD_INFO[f].label}</th>
                  <td className="num">{a.raters.length}</td>
                  <td className="num">{a.items}</td>
                  <td className="num">
                    {a.percent.agreed}/{a.percent.of}
                  </td>
                  <td>{a.kappa.value === null ? <span className="muted">undefined: {a.kappa.reason}</span> : `${a.statistic === "cohen" ? "Cohen" : "Fleiss"} ${a.kappa.value.toFixed(3)}`}</td>
                  <td>{a.disagreements.join(", ") || "none"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {reconciles ? (
        <p>
          Export: <a href="/api/v1/protocols/export?format=csv">ledger CSV</a> · <a href="/api/v1/protocols/export?format=json">JSON</a> ·{" "}
          <a href="/api/v1/protocols/export?format=latex-table3">Table 3 (LaTeX)</a> · <a href="/api/v1/protocols/export?format=latex-a1">Table A.1 (LaTeX)</a>
        </p>
      ) : null}
    </>
  );
}
