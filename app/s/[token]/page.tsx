import type { Metadata } from "next";
import { headers } from "next/headers";
import { ExperimentReport } from "@/components/experiment-report";
import { MatrixTable, Table3Table } from "@/components/review/matrix-report";
import { RunReport } from "@/components/run-report";
import { getDb } from "@/lib/db/client";
import { lookUpShareLink } from "@/lib/share/access";
import { shareRefusal } from "@/lib/share/refusal";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared result", robots: { index: false, follow: false }, referrer: "no-referrer" };

/**
 * A share link's page, for anyone holding the token and no account: exactly one resource, read-only,
 * with a banner saying what the reviewer sees (the frozen snapshot's time and hash, or "live").
 */
export default async function SharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const opened = await lookUpShareLink(getDb(), await headers(), token);
  const refusal = shareRefusal(opened);
  if (refusal || opened.status !== "ok") {
    return (
      <>
        <h1>{refusal?.title}</h1>
        <p role="alert" data-testid="share-refusal" data-code={refusal?.code}>
          {refusal?.message}
        </p>
      </>
    );
  }
  const { link, content, contentHash, snapshotAt } = opened;
  return (
    <>
      <div className="share-banner" role="note" data-testid="share-banner">
        <strong>Read-only shared {link.resourceType}.</strong>{" "}
        {link.mode === "frozen" ? (
          <>
            Frozen snapshot taken <time dateTime={iso(snapshotAt)}>{iso(snapshotAt)}</time> (UTC), SHA-256 <code data-testid="share-hash">{contentHash}</code>: this is
            exactly what the sender saw.
          </>
        ) : (
          <>
            Live view as of <time dateTime={iso(snapshotAt)}>{iso(snapshotAt)}</time> (UTC): it follows the {link.resourceType} as it changes. Content SHA-256{" "}
            <code data-testid="share-hash">{contentHash}</code>.
          </>
        )}{" "}
        {link.expiresAt ? <>The link expires {iso(link.expiresAt)}.</> : <>The link does not expire; its sender can revoke it.</>}
      </div>
      {content.kind === "experiment" ? (
        <ExperimentReport experiment={content.experiment} summary={content.summary} byDelay={content.byDelay} unresolved={content.unresolved} config={content.experiment.config} />
      ) : content.kind === "run" ? (
        <RunReport content={content} />
      ) : (
        <>
          <h1>Protocol review: consensus codes</h1>
          <MatrixTable protocols={content.protocols} matrix={content.consensus} caption="Consensus code per protocol and field" />
          <h2>Table 3, computed from the consensus</h2>
          <Table3Table rows={content.table3} />
        </>
      )}
    </>
  );
}

function iso(value: Date | string): string {
  return typeof value === "string" ? value : value.toISOString();
}
