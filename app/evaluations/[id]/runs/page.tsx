import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EvaluationRunsList } from "@/components/runs/evaluation-runs-list";
import { OpenLiveRuns } from "@/components/runs/open-live-runs";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import { loadEvaluationRunsPage } from "@/lib/evaluations/read/runs-page";
import { evaluationRunListQuerySchema } from "@/lib/evaluations/read/read-boundary";
import type { SearchParams } from "@/lib/http/input";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation runs" };

export default async function EvaluationRunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  const search = await searchParams;
  const path = `/evaluations/${id}/runs`;
  await requirePagePermission("results:read", `${path}${searchString(search)}`);
  const parsed = parsePageQuery(evaluationRunListQuerySchema, search);
  const query = parsed.ok ? parsed.query : null;
  const loaded = await loadEvaluationRunsPage(getDb(), id, query);
  if (!loaded) notFound();
  const { name, page, open } = loaded;

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/evaluations", label: "Evaluations" },
          { href: `/evaluations/${id}`, label: name },
        ]}
        title={<>Runs of “{name}”</>}
        description="In the order they were stored, unless sorted otherwise. A run is final when every relevant effect was terminal at scoring; otherwise unresolved (not failed), with its earliest open effect's reason and tool. Runs connected through shared state share a unit, labelled U1, U2, … by each unit's first run."
      />
      <div className="space-y-4">
        <OpenLiveRuns evaluationId={id} open={open} />
        <EvaluationRunsList
          path={path}
          runHref={(externalId, q) => `${path}/${encodeURIComponent(externalId)}${q ? `?${new URLSearchParams({ q })}` : ""}`}
          query={query}
          error={parsed.ok ? null : parsed.message}
          page={page}
          compareAction={`/evaluations/${id}/compare-runs`}
          empty={
            <p>
              Send runs with <code>npm run ingest -- --evaluation {id} FILE.jsonl</code>.
            </p>
          }
        />
      </div>
    </>
  );
}
