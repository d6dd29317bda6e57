import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RunFiltersForm } from "@/components/runs/run-filters";
import { RunTable } from "@/components/runs/run-table";
import styles from "@/components/runs/runs.module.css";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, runFiltersOf, runListQuerySchema, searchString, viewQuery } from "@/lib/dashboard/filters";
import type { SearchParams } from "@/lib/http/input";
import { listRuns, runsViewExperiment } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { isExperimentId } from "@/lib/replay/display";
import { ExportLinks, Pager } from "@/components/runs/list-chrome";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const search = await searchParams;
  const path = `/experiments/${id}/runs`;
  await requirePagePermission("results:read", `${path}${searchString(search)}`);
  if (!isExperimentId(id)) notFound();
  const db = getDb();
  const experiment = await runsViewExperiment(db, id);
  if (!experiment) notFound();

  const parsed = parsePageQuery(runListQuerySchema, search);
  const filters = parsed.ok ? runFiltersOf(parsed.query) : {};
  const page = parsed.ok ? await listRuns(db, id, { filters, cursor: parsed.query.cursor, limit: parsed.query.limit }) : null;
  // Links carry a page size only when the visitor chose one.
  const limit = parsed.ok && search.limit ? parsed.query.limit : undefined;
  const exportHref = (format: "csv" | "json") => `/api/v1/experiments/${id}/runs/export${viewQuery(filters, { format })}`;

  return (
    <>
      <p>
        <Link href={`/experiments/${id}`}>Back to experiment {id.slice(0, 8)}</Link>
      </p>
      <h1>
        Runs of experiment <code>{id}</code>
      </h1>
      <p className="muted">
        State: {experiment.state}. The endpoint label is read right after the write was acknowledged, the terminal label once the operation was followed to its end; the recorded
        label is the one the run&apos;s policy keeps. Agreement compares the endpoint and terminal labels; exposure (B runs only) says whether A&apos;s write changed the value B scored.
      </p>

      <RunFiltersForm action={path} filters={filters} delays={experiment.delaysMs} conditions={experiment.conditions} />

      {!parsed.ok ? (
        <div className="error" role="alert">
          <p>These filters cannot be applied: {parsed.message}.</p>
          <p>
            <Link href={path}>Show every run</Link>
          </p>
        </div>
      ) : page ? (
        <>
          <p className={styles.status} role="status" data-testid="runs-count">
            Showing {page.runs.length} of {page.total} matching runs{parsed.query.cursor ? " (a later page)" : ""}.
          </p>
          <ExportLinks what="run" hrefFor={exportHref} />
          {page.runs.length === 0 ? (
            <div className="empty">
              <p>No run matches these filters.</p>
              <p>
                <Link href={path}>Clear filters</Link>
              </p>
            </div>
          ) : (
            <RunTable runs={page.runs} caption={`Runs matching the filters (${page.runs.length} shown of ${page.total})`} />
          )}
          <Pager
            label="Pages of runs"
            firstHref={parsed.query.cursor ? `${path}${viewQuery(filters, { limit })}` : null}
            nextHref={page.nextCursor ? `${path}${viewQuery(filters, { limit, cursor: page.nextCursor })}` : null}
          />
        </>
      ) : null}
    </>
  );
}
