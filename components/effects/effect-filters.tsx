import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { FilterForm } from "@/components/runs/list-chrome";
import { ENDPOINT_STATUSES, TERMINAL_STATUSES, type EffectFilters } from "@/lib/experiments/read/filters";
import { experimentTitle } from "@/lib/format/runs";

/** The open-effects view's filters, in the URL (a link reproduces the view). */
export function EffectFiltersForm({
  action,
  filters,
  experiments,
}: {
  action: string;
  filters: EffectFilters;
  experiments: readonly { id: string; name: string | null; createdAt: string }[];
}) {
  const choices: { value: string; label: string; at?: string }[] = experiments.map((e) => ({
    value: e.id,
    label: experimentTitle(e),
    at: e.createdAt,
  }));
  // A filtered experiment outside the list (older than its limit) stays selectable.
  if (filters.experiment && !experiments.some((e) => e.id === filters.experiment))
    choices.push({ value: filters.experiment, label: filters.experiment });
  return (
    <FilterForm action={action} label="Filter open effects">
      <FilterSelect name="experiment" label="Experiment" value={filters.experiment} options={choices} />
      <FilterSelect name="terminal" label="Terminal status" value={filters.terminal} options={plainOptions(TERMINAL_STATUSES)} />
      <FilterSelect name="endpoint" label="Status at the endpoint" value={filters.endpoint} options={plainOptions(ENDPOINT_STATUSES)} />
    </FilterForm>
  );
}
