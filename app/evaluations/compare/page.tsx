import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparePicker } from "@/components/evaluations/compare-picker";
import { FilterError } from "@/components/runs/list-chrome";
import { ComparisonReport } from "@/components/statistics/comparison-report";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { SharePanel } from "@/components/share/share-panel";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import { DomainError } from "@/lib/errors";
import { compareQuerySchema, compareStoredEvaluations } from "@/lib/evaluations/read/compare";
import { listEvaluations } from "@/lib/evaluations/read/list-evaluations";
import type { SearchParams } from "@/lib/http/input";

export const dynamic = "force-dynamic";
/** How many of the newest evaluations the picker offers. */
const PICKER_SIZE = 100;
export const metadata: Metadata = { title: "Compare evaluations" };

export default async function CompareEvaluationsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const search = await searchParams;
  const principal = await requirePagePermission("results:read", `/evaluations/compare${searchString(search)}`);
  const canShare = can(principal.role, "share:create");
  // `ids=a,b,c` as the API takes it, or `ids=a&ids=b` as the list's checkboxes submit it.
  const ids = [search.ids ?? []].flat().join(",");
  const parsed = parsePageQuery(compareQuerySchema, { ids });
  const header = (
    <PageHeader
      crumbs={[{ href: "/evaluations", label: "Evaluations" }]}
      title="Compare evaluations"
      description="Rates, justified ranges and intervals side by side under one exclusion rule, and whether each difference survives the bounds."
    />
  );
  if (!parsed.ok) {
    const page = await listEvaluations(getDb(), { limit: PICKER_SIZE });
    return (
      <>
        {header}
        {/* No ids at all is where a reader starts: a picker, not an error. */}
        {ids === "" ? null : (
          <FilterError message={parsed.message} resetHref="/evaluations" resetLabel="Choose evaluations on the evaluations page" />
        )}
        <ComparePicker evaluations={page.evaluations} checked={new Set(ids.split(","))} more={page.nextCursor !== null} />
      </>
    );
  }
  const comparison = await compareStoredEvaluations(getDb(), parsed.query.ids).catch((error: unknown) => {
    if (error instanceof DomainError && error.kind === "not_found") notFound();
    throw error;
  });
  return (
    <>
      {header}
      <ComparisonReport comparison={comparison} />
      {canShare ? <SharePanel resourceType="comparison" resourceIds={parsed.query.ids} /> : null}
    </>
  );
}
