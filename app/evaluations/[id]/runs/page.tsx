import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EvaluationRunsList, RUNS_LIST_DESCRIPTION, runPageUnder } from "@/components/runs/evaluation-runs-list";
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
        description={RUNS_LIST_DESCRIPTION}
      />
      <div className="space-y-4">
        <OpenLiveRuns evaluationId={id} open={open} />
        <EvaluationRunsList
          path={path}
          runHref={runPageUnder(path)}
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
