import Link from "next/link";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import styles from "@/components/runs/runs.module.css";
import { ENDPOINT_STATUSES, TERMINAL_STATUSES, type EffectFilters } from "@/lib/dashboard/filters";

/** The open-effects view's filters: a plain GET form, so that a link reproduces the view. */
export function EffectFiltersForm({ action, filters, experiments }: { action: string; filters: EffectFilters; experiments: readonly { id: string; createdAt: string }[] }) {
  const choices = experiments.map((e) => ({ value: e.id, label: `${e.createdAt} (${e.id.slice(0, 8)})` }));
  // A filtered experiment outside the list (older than its limit) stays selectable.
  if (filters.experiment && !experiments.some((e) => e.id === filters.experiment)) choices.push({ value: filters.experiment, label: filters.experiment });
  return (
    <form method="get" action={action} aria-label="Filter open effects">
      <fieldset className={styles.filters}>
        <legend>Filter open effects</legend>
        <FilterSelect name="experiment" label="Experiment (created, UTC)" value={filters.experiment} options={choices} />
        <FilterSelect name="terminal" label="Terminal status" value={filters.terminal} options={plainOptions(TERMINAL_STATUSES)} />
        <FilterSelect name="endpoint" label="Status at the endpoint" value={filters.endpoint} options={plainOptions(ENDPOINT_STATUSES)} />
        <p className={styles.actions}>
          <button type="submit">Apply filters</button>
          <Link href={action}>Clear filters</Link>
        </p>
      </fieldset>
    </form>
  );
}
