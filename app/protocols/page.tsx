import { Download, TriangleAlert } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { MatrixTable, Table3Table } from "@/components/review/matrix-report";
import { ProtocolForm } from "@/components/review/protocol-form";
import { SharePanel } from "@/components/share/share-panel";
import { buttonClass } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/web-process-db";
import { agreementCaveat } from "@/lib/review/agreement";
import { CODE_INFO, FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS } from "@/lib/review/codes";
import { matrixShow, viewerOf } from "@/lib/review/route-input";
import { matrixView } from "@/lib/review/views";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Protocol review" };

export default async function ProtocolsPage({ searchParams }: { searchParams: Promise<{ show?: string; paper?: string }> }) {
  const principal = await requirePagePermission("results:read", "/protocols");
  const query = await searchParams;
  const show = query.show ?? "consensus";
  const paperAsRater = query.paper === "true";
  const view = await matrixView(getDb(), viewerOf(principal), matrixShow(show, principal), { paperAsRater });
  const reconciles = can(principal.role, "review:reconcile");
  const tabs: [string, string][] = [
    ["consensus", "Consensus"],
    ["paper", "The paper's codes"],
    ...(can(principal.role, "review:code") ? [["mine", "My codes"] as [string, string]] : []),
    ...(reconciles ? view.reviewers.filter((r) => r.id !== principal.userId).map((r) => [r.id, r.email] as [string, string]) : []),
  ];
  return (
    <>
      <PageHeader
        title="Protocol review"
        description={`What public protocols document about the evaluation boundary: the paper's ten (section 5, marked reference) and any your team adds. Codes: ${REVIEW_CODES.map((c) => `${c} ${CODE_INFO[c].label.toLowerCase()}`).join(", ")}.`}
      />
      <nav aria-label="Matrix view" className="mb-4 flex flex-wrap gap-1 border-b border-border">
        {tabs.map(([key, label]) => (
          <Link
            key={key}
            href={`/protocols?show=${encodeURIComponent(key)}`}
            aria-current={show === key ? "page" : undefined}
            className={cn(
              "-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted-foreground no-underline hover:text-foreground",
              show === key && "border-primary text-foreground",
            )}
          >
            {label}
          </Link>
        ))}
      </nav>
      <MatrixTable
        protocols={view.protocols}
        matrix={view.matrix}
        reviewers={show === "consensus" ? view.consensusReviewers : undefined}
        caption={`Codes per protocol and field (${tabs.find(([k]) => k === show)?.[1] ?? "consensus"})`}
      />

      <Section
        title="Table 3, computed from the consensus"
        description="Over the paper's ten reference protocols, beside the paper's own counts."
      >
        <Table3Table rows={view.table3} />
      </Section>

      <Section
        title="Agreement between reviewers"
        description={
          <>
            Over the protocols whose codes you may see (a reviewer sees others&apos; codes of a protocol once they have coded all of it);{" "}
            {paperAsRater ? "the paper's published codes count as one more rater. " : "the paper's codes are not a rater here. "}
            <Link href={`/protocols?show=${encodeURIComponent(show)}${paperAsRater ? "" : "&paper=true"}`} data-testid="paper-rater-toggle">
              {paperAsRater ? "Leave the paper out" : "Count the paper as a rater"}
            </Link>
          </>
        }
      >
        <DataTable
          caption="Agreement per field"
          testId="agreement"
          columns={["Field", "Reviewers", "Protocols compared", "Percent agreement", "Kappa", "Disagreeing cells"]}
          numericColumns={[1, 2, 3]}
        >
          {REVIEW_FIELDS.map((f) => {
            const a = view.agreement[f];
            const caveat = agreementCaveat(a);
            return (
              <tr key={f}>
                <RowHead>{FIELD_INFO[f].label}</RowHead>
                <Td numeric>{a.raters.length}</Td>
                <Td numeric>{a.items}</Td>
                <Td numeric>
                  {a.percent.agreed}/{a.percent.of}
                </Td>
                <Td className="max-w-sm">
                  {a.kappa.value === null ? (
                    <span className="text-muted-foreground">undefined: {a.kappa.reason}</span>
                  ) : (
                    <>
                      <span className="tabular-nums">{`${a.statistic === "cohen" ? "Cohen" : "Fleiss"} ${a.kappa.value.toFixed(3)}`}</span>
                      {caveat ? (
                        <p className="mt-1 flex gap-1.5 text-xs text-warning" data-testid={`agreement-caveat-${f}`}>
                          <TriangleAlert aria-hidden="true" className="mt-0.5 size-3.5 shrink-0" />
                          <span>Caveat: {caveat}.</span>
                        </p>
                      ) : null}
                    </>
                  )}
                </Td>
                <Td>{a.disagreements.join(", ") || "none"}</Td>
              </tr>
            );
          })}
        </DataTable>
      </Section>
      {reconciles ? (
        <Section title="Exports">
          <div className="flex flex-wrap gap-2">
            {[
              ["csv", "Ledger CSV"],
              ["json", "JSON"],
              ["latex-table3", "Table 3 (LaTeX)"],
              ["latex-a1", "Table A.1 (LaTeX)"],
            ].map(([format, label]) => (
              <a key={format} href={`/api/v1/protocols/export?format=${format}`} className={buttonClass({ size: "sm" })}>
                <Download aria-hidden="true" />
                {label}
              </a>
            ))}
          </div>
        </Section>
      ) : null}
      {can(principal.role, "protocol:write") ? (
        <Section
          title="Add a protocol"
          description="Your own benchmark, reviewed beside the paper's: coded blind, reconciled, and argued (its completion argument)."
        >
          <ProtocolForm />
        </Section>
      ) : null}
      {can(principal.role, "share:create") ? <SharePanel resourceType="protocol_matrix" /> : null}
    </>
  );
}
