import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { COMPARE_RUNS_DESCRIPTION, CompareRunsView } from "@/components/evaluations/compare-runs-view";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/web-process-db";
import { runsToCompare } from "@/lib/evaluations/read/compare-runs";
import { loadCompareRunsPage } from "@/lib/evaluations/read/compare-runs-page";
import { toolClassifier } from "@/lib/evaluations/policy";
import type { SearchParams } from "@/lib/http/input";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Two runs side by side" };

/** Two runs of an evaluation side by side (`?a=…&b=…`, their external ids; components/evaluations/compare-runs-view.tsx). */
export default async function CompareRunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  const search = await searchParams;
  const path = `/evaluations/${id}/compare-runs`;
  await requirePagePermission("results:read", path);
  const chosen = runsToCompare(search);
  if (chosen.status === "redirect") redirect(`${path}?${chosen.query}`);
  const page = await loadCompareRunsPage(getDb(), id, chosen.status === "ok" ? { a: chosen.a, b: chosen.b } : null);
  if (!page) notFound();
  const { evaluation, runs, messages } = page;
  const missing =
    chosen.status === "ok"
      ? [
          ...(runs?.a ? [] : [`a: no stored run “${chosen.a}” in this evaluation`]),
          ...(runs?.b ? [] : [`b: no stored run “${chosen.b}” in this evaluation`]),
        ].join("; ")
      : chosen.message;
  const compared =
    runs?.a && runs.b && messages
      ? { a: runs.a, b: runs.b, messagesA: messages.a, messagesB: messages.b, classOf: toolClassifier(evaluation.effectPolicy) }
      : { problem: missing };
  const listHref = `/evaluations/${id}/runs`;

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/evaluations", label: "Evaluations" },
          { href: `/evaluations/${id}`, label: evaluation.name },
          { href: listHref, label: "Runs" },
        ]}
        title="Two runs side by side"
        description={COMPARE_RUNS_DESCRIPTION}
      />
      <CompareRunsView
        path={path}
        search={search}
        listHref={listHref}
        runHref={(externalId) => `/evaluations/${id}/runs/${encodeURIComponent(externalId)}`}
        compared={compared}
      />
    </>
  );
}
