import { chartText, type ChartSpec } from "./chart-specs";
import { LazyChart } from "./lazy-chart";

/** A chart with its caption and a text alternative (role=img with every n/N figure), both from the server. */
export function ChartFigure({ spec }: { spec: ChartSpec }) {
  const { title, description } = chartText(spec);
  // The caption says what the chart counts; the n/N figures are in the text alternative (and the table above it).
  const meaning = description.slice(0, description.indexOf(". ") + 1) || description;
  return (
    <figure className="chart m-0 flex flex-col gap-2 rounded-lg border border-border bg-card p-4 shadow-xs">
      <div role="img" aria-label={`${title}. ${description}`}>
        <LazyChart spec={spec} />
      </div>
      <figcaption className="text-xs text-muted-foreground">
        <strong className="text-foreground">{title}.</strong> {meaning}
      </figcaption>
    </figure>
  );
}
