import { AGREEMENTS, EXPOSURES, RECORDED_LABEL_FILTERS, RUN_ROLES, type RunFilters } from "@/lib/experiments/read/filters";
import { conditionLabel } from "@/lib/format/runs";
import { CLASSIFICATION_LABELS } from "@/lib/format/replay-labels";
import { RUN_CLASSIFICATIONS } from "@/lib/replay/rules/classification";
import { FilterSelect, plainOptions } from "./filter-select";
import { FilterForm } from "./list-chrome";

const ROLE_LABELS: Record<(typeof RUN_ROLES)[number], string> = {
  single: "single (finality trial)",
  A: "A (separation pair)",
  B: "B (separation pair)",
};
const AGREEMENT_LABELS: Record<(typeof AGREEMENTS)[number], string> = { agree: "endpoint = terminal", disagree: "endpoint ≠ terminal" };
const EXPOSURE_LABELS: Record<(typeof EXPOSURES)[number], string> = { exposed: "exposed", unexposed: "not exposed" };

/** The runs view's filters, in the URL (a link reproduces the view). */
export function RunFiltersForm({
  action,
  filters,
  delays,
  conditions,
}: {
  action: string;
  filters: RunFilters;
  delays: readonly number[];
  conditions: readonly string[];
}) {
  return (
    <FilterForm action={action} label="Filter runs">
      <FilterSelect
        name="condition"
        label="Condition"
        value={filters.condition}
        options={conditions.map((c) => ({ value: c, label: conditionLabel(c) }))}
      />
      <FilterSelect name="delay" label="Delay (ms)" value={filters.delay} options={plainOptions(delays)} />
      <FilterSelect name="role" label="Role" value={filters.role} options={RUN_ROLES.map((r) => ({ value: r, label: ROLE_LABELS[r] }))} />
      <FilterSelect name="label" label="Recorded label" value={filters.label} options={plainOptions(RECORDED_LABEL_FILTERS)} />
      <FilterSelect
        name="agreement"
        label="Agreement"
        value={filters.agreement}
        options={AGREEMENTS.map((a) => ({ value: a, label: AGREEMENT_LABELS[a] }))}
      />
      <FilterSelect
        name="exposure"
        label="Exposure"
        value={filters.exposure}
        options={EXPOSURES.map((e) => ({ value: e, label: EXPOSURE_LABELS[e] }))}
      />
      <FilterSelect
        name="classification"
        label="Classification"
        value={filters.classification}
        options={RUN_CLASSIFICATIONS.map((c) => ({ value: c, label: CLASSIFICATION_LABELS[c] }))}
      />
    </FilterForm>
  );
}
