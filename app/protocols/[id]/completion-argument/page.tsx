import { Download } from "lucide-react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ArgumentEditor, type EvidenceOption } from "@/components/review/argument-editor";
import { ArgumentBody, ArgumentGlance } from "@/components/review/argument-report";
import { SharePanel } from "@/components/share/share-panel";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { PageHeader, Section } from "@/components/ui/page-header";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/web-process-db";
import { FIELD_INFO, REVIEW_FIELDS } from "@/lib/review/codes";
import { emptyArgument } from "@/lib/review/completion-schema";
import { argumentView } from "@/lib/review/completion-store";
import { viewerOf } from "@/lib/review/route-input";
import { visibleCodes } from "@/lib/review/review-codes-store";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Completion argument" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How many recent experiments and evaluations the evidence pickers offer. */
const PICKER_LIMIT = 50;

export default async function CompletionArgumentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/protocols/${id}/completion-argument`);
  if (!UUID.test(id)) notFound();
  const db = getDb();
  const viewer = viewerOf(principal);
  const view = await argumentView(db, viewer, id);
  if (!view) notFound();
  const edits = can(principal.role, "protocol:write") && !view.protocol.retired;
  let options: EvidenceOption[] = [];
  if (edits) {
    const [experiments, evaluations, { codes }] = await Promise.all([
      db.experiment.findMany({
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: PICKER_LIMIT,
        select: { id: true, name: true, state: true, createdAt: true },
      }),
      db.evaluation.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: PICKER_LIMIT, select: { id: true, name: true } }),
      visibleCodes(db, viewer, id),
    ]);
    options = [
      ...experiments.map((e) => ({
        kind: "experiment" as const,
        id: e.id,
        // An unnamed experiment is told by its time, which the editor writes in the reader's zone.
        label: `${e.name ?? "Unnamed experiment"} (${e.state})`,
        ...(e.name ? {} : { at: e.createdAt.toISOString() }),
      })),
      ...evaluations.map((e) => ({ kind: "evaluation" as const, id: e.id, label: e.name })),
      ...codes.map((c) => ({
        kind: "review_code" as const,
        id: c.id,
        label: `${FIELD_INFO[c.field].label}: ${c.ledger.code} (${c.fromPaper ? "the paper" : c.reviewerId === principal.userId ? "yours" : "a reviewer's"}, version ${c.ledger.version})`,
      })),
    ];
  }
  const current = view.current;
  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/protocols", label: "Protocol review" },
          { href: `/protocols/${id}`, label: view.protocol.name },
        ]}
        title={`Completion argument: ${view.protocol.name}`}
        description="The paper's section 6: four questions, each answered with evidence. Question 3 lists every route by which work can outlive the endpoint or cross runs, with its treatment."
        meta={
          <span className="inline-flex flex-wrap items-center gap-2">
            {current ? (
              <span data-testid="argument-version">
                Version {current.version}, <Time iso={current.updatedAt} />
                {current.updatedBy ? ` by ${current.updatedBy}` : ""}
              </span>
            ) : (
              <span>No argument yet</span>
            )}
            {view.protocol.retired ? <Badge tone="warning">retired</Badge> : null}
            <span>
              Review codes (consensus):{" "}
              {REVIEW_FIELDS.map(
                (f) => `${FIELD_INFO[f].label} ${view.consensus[f] ?? "uncoded (awaiting reviewers' codes and a reconciliation)"}`,
              ).join(" · ")}
            </span>
          </span>
        }
      />
      {current && view.status ? (
        <>
          <ArgumentGlance argument={current.argument} status={view.status} />
          <ArgumentBody argument={current.argument} evidence={view.evidence} />
        </>
      ) : (
        <Alert tone="info" role="note" title="No argument yet" className="mb-8">
          <p>{edits ? "Write the four answers below." : "An editor has not written this protocol's argument yet."}</p>
        </Alert>
      )}
      {current ? (
        <Section title="Exports">
          <div className="flex flex-wrap gap-2">
            {[
              ["markdown", "Markdown"],
              ["latex", "LaTeX"],
              ["json", "JSON"],
            ].map(([format, label]) => (
              <a
                key={format}
                href={`/api/v1/protocols/${id}/completion-argument?format=${format}`}
                className={buttonClass({ size: "sm" })}
                data-testid={`export-${format}`}
              >
                <Download aria-hidden="true" />
                {label}
              </a>
            ))}
          </div>
        </Section>
      ) : null}
      {edits ? (
        <Section
          title={current ? "Edit the argument" : "Write the argument"}
          description="Each save is a new version with your reason; nothing is overwritten."
        >
          <ArgumentEditor
            key={current?.version ?? 0}
            protocolId={id}
            version={current?.version ?? null}
            initial={current?.argument ?? emptyArgument()}
            options={options}
          />
        </Section>
      ) : null}
      {view.revisions.length ? (
        <Section title="History" description="Every version, newest first.">
          <ol className="space-y-1 text-sm" data-testid="argument-history">
            {[...view.revisions].reverse().map((r) => (
              <li key={r.version}>
                Version {r.version}, <Time iso={r.createdAt} />
                {r.author ? ` by ${r.author}` : ""}: {r.reason}
              </li>
            ))}
          </ol>
        </Section>
      ) : null}
      {current && can(principal.role, "share:create") ? <SharePanel resourceType="completion_argument" resourceId={id} /> : null}
    </>
  );
}
