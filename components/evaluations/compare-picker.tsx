import { Scale } from "lucide-react";
import { buttonClass } from "@/components/ui/button";
import type { EvaluationListItem } from "@/lib/evaluations/read/list-evaluations";

/**
 * The compare page without a usable `ids`: the newest evaluations to tick (those already named stay
 * ticked), submitted as the list's checkboxes submit them.
 */
export function ComparePicker({
  evaluations,
  checked,
  more,
}: {
  evaluations: readonly EvaluationListItem[];
  checked: ReadonlySet<string>;
  more: boolean;
}) {
  if (evaluations.length < 2)
    return (
      <p className="text-sm" data-testid="compare-picker-empty">
        A comparison needs two evaluations; {evaluations.length === 0 ? "none is stored" : "one is stored"} yet. Import or ingest another
        from the <a href="/evaluations">evaluations page</a>.
      </p>
    );
  return (
    <form action="/evaluations/compare" method="get" className="space-y-3" data-testid="compare-picker">
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">
          Choose two or more evaluations to compare{more ? ` (the ${evaluations.length} newest; the evaluations page lists them all)` : ""}
        </legend>
        <ul className="grid gap-1 sm:grid-cols-2">
          {evaluations.map((e) => (
            <li key={e.id}>
              <label className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="ids" value={e.id} defaultChecked={checked.has(e.id)} className="size-4" />
                <span>
                  {e.name} <span className="text-muted-foreground">({e.runs} runs)</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <button type="submit" className={buttonClass({ size: "sm" })}>
        <Scale aria-hidden="true" />
        Compare
      </button>
    </form>
  );
}
