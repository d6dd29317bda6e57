import { ListX } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { EffectFiltersForm } from "@/components/effects/effect-filters";
import { EffectsTable } from "@/components/effects/effects-table";
import { ExportLinks, FilterError, ListSummary, Pager } from "@/components/runs/list-chrome";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { experimentsWithEffects, listEffects } from "@/lib/experiments/read/effects";
import { effectFiltersOf, effectListQuerySchema, parsePageQuery, searchString, viewQuery } from "@/lib/experiments/read/filters";
import type { SearchParams } from "@/lib/http/input";
import { getDb } from "@/lib/db/web-process-db";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Open effects" };

const PATH = "/effects";

export default async function EffectsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const search = await searchParams;
  await requirePagePermission("results:read", `${PATH}${searchString(search)}`);
  const db = getDb();
  const parsed = parsePageQuery(effectListQuerySchema, search);
  const filters = parsed.ok ? effectFiltersOf(parsed.query) : {};
  const [experiments, page] = await Promise.all([
    experimentsWithEffects(db),
    parsed.ok ? listEffects(db, { filters, cursor: parsed.query.cursor, limit: parsed.query.limit }) : null,
  ]);
  // Links carry a page size only when the visitor chose one.
  const limit = parsed.ok && search.limit ? parsed.query.limit : undefined;
  const exportHref = (format: "csv" | "json") => `/api/v1/effects/export${viewQuery(filters, { format })}`;

  return (
    <>
      <PageHeader
        title="Open effects"
        description="Every operation a run left that could still change state after its endpoint (the paper's Table C.1), across experiments: unresolved records first, then by experiment and service time. Each record was resolved by following its handle on the service; each row links to its run."
      />
      <div className="space-y-4">
        <EffectFiltersForm action={PATH} filters={filters} experiments={experiments} />

        {!parsed.ok ? (
          <FilterError message={parsed.message} resetHref={PATH} resetLabel="Show every record" />
        ) : page ? (
          <>
            <ListSummary testId="effects-count" exports={<ExportLinks what="record" hrefFor={exportHref} />}>
              Showing {page.effects.length} of {page.total} matching records ({page.unresolved} unresolved)
              {parsed.query.cursor ? " (a later page)" : ""}.
            </ListSummary>
            {page.effects.length === 0 ? (
              <EmptyState
                icon={ListX}
                title={
                  page.total === 0 && !Object.values(filters).some(Boolean)
                    ? "No open-effects record is stored yet"
                    : "No open-effects record matches these filters"
                }
              >
                <p>
                  <Link href={PATH}>Clear filters</Link>
                </p>
              </EmptyState>
            ) : (
              <EffectsTable
                effects={page.effects}
                caption={`Open-effects records, unresolved first (${page.effects.length} shown of ${page.total})`}
              />
            )}
            <Pager
              label="Pages of open effects"
              firstHref={parsed.query.cursor ? `${PATH}${viewQuery(filters, { limit })}` : null}
              nextHref={page.nextCursor ? `${PATH}${viewQuery(filters, { limit, cursor: page.nextCursor })}` : null}
            />
          </>
        ) : null}
      </div>
    </>
  );
}
