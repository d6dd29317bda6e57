import Link from "next/link";
import { ChartFigure } from "@/components/experiment/chart-figure";
import { Alert } from "@/components/ui/alert";
import { Badge, type Tone } from "@/components/ui/badge";
import { Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import type { ComparisonAnswer } from "@/lib/evaluations/read/compare";
import { percent, ratio } from "@/lib/format/numbers";
import type { Verdict } from "@/lib/statistics/sensitivity";
import { ComparisonAttack } from "./comparison-attack";
import { intervalText } from "./statistics-panel";

const VERDICT_TONES: Record<Verdict, Tone> = {
  "holds across the justified range": "success",
  "flips within it": "danger",
  "not separable at this sample size": "warning",
};

type Figure = ComparisonAnswer["evaluations"][number]["reported"];
const figureText = (f: Figure) => `${ratio(f.n, f.N)} (${percent(f.n, f.N)})`;

/** Each evaluation's rates, range and interval, the two rankings, and a verdict per pair. */
export function ComparisonReport({
  comparison,
  linksToEvaluations = true,
}: {
  comparison: ComparisonAnswer;
  linksToEvaluations?: boolean;
}) {
  const names = new Map(comparison.evaluations.map((e) => [e.id, e.name]));
  const name = (id: string | null) => (id === null ? "—" : names.get(id)!);
  return (
    <>
      <Alert
        tone={comparison.rulesDiffer ? "warning" : "info"}
        role="note"
        title={`One exclusion rule for every evaluation: version ${comparison.rule.version}`}
        data-testid="comparison-rule"
      >
        <p>{comparison.ruleNote}</p>
      </Alert>
      <Section
        title="Each evaluation"
        id="evaluations"
        description="The justified range counts every unresolved run as a failure, then as a success; its interval runs from the lower end's 95% Wilson lower bound to the upper end's upper bound."
      >
        <DataTable
          caption="Rates with their 95% Wilson intervals"
          columns={[
            "Evaluation",
            "Reported (endpoint)",
            "Final-only",
            `Under rule version ${comparison.rule.version}`,
            "Justified range",
            "Interval across the range",
            "Rank: endpoint",
            "Rank: final-only",
          ]}
          numericColumns={[1, 2, 3, 4, 5, 6, 7]}
          testId="comparison-evaluations"
        >
          {comparison.evaluations.map((e) => (
            <tr key={e.id}>
              <RowHead>{linksToEvaluations ? <Link href={`/evaluations/${e.id}`}>{e.name}</Link> : e.name}</RowHead>
              <Td numeric>
                {figureText(e.reported)}
                <br />
                <span className="text-xs text-muted-foreground">{intervalText(e.reported.wilson95)}</span>
              </Td>
              <Td numeric>
                {figureText(e.finalOnly)}
                <br />
                <span className="text-xs text-muted-foreground">{intervalText(e.finalOnly.wilson95)}</span>
              </Td>
              <Td numeric>
                {figureText(e.underRule)}
                <br />
                <span className="text-xs text-muted-foreground">{intervalText(e.underRule.wilson95)}</span>
              </Td>
              <Td numeric>
                {ratio(e.justifiedRange.lower.n, e.justifiedRange.lower.N)} to {ratio(e.justifiedRange.upper.n, e.justifiedRange.upper.N)}
                <br />
                <span className="text-xs text-muted-foreground">
                  {percent(e.justifiedRange.lower.n, e.justifiedRange.lower.N)} –{" "}
                  {percent(e.justifiedRange.upper.n, e.justifiedRange.upper.N)}
                </span>
              </Td>
              <Td numeric>{intervalText(e.justifiedRange.wilson95)}</Td>
              <Td numeric>{e.rank.endpoint ?? "—"}</Td>
              <Td numeric>{e.rank.finalOnly ?? "—"}</Td>
            </tr>
          ))}
        </DataTable>
        <div className="mt-4" data-testid="comparison-interval-plot">
          <ChartFigure spec={{ kind: "comparison", evaluations: comparison.evaluations }} />
        </div>
      </Section>
      <Section
        title="Ranking"
        id="ranking"
        description={
          comparison.ranking.changed
            ? "The ranking under endpoint scoring differs from the ranking under final-only scoring."
            : "Endpoint and final-only scoring rank the evaluations the same way."
        }
      >
        <div className="grid gap-4 sm:grid-cols-2" data-testid="comparison-ranking">
          {(
            [
              ["Endpoint scoring (reported labels)", comparison.ranking.endpoint, "endpoint"],
              ["Final-only scoring", comparison.ranking.finalOnly, "finalOnly"],
            ] as const
          ).map(([title, ids, key]) => (
            <div key={key} className="rounded-lg border border-border bg-card p-4 shadow-xs">
              <h3 className="text-sm font-semibold">{title}</h3>
              <ol className="mt-2 list-decimal space-y-1 pl-5 text-sm" data-testid={`ranking-${key}`}>
                {ids.map((id) => (
                  <li key={id}>{name(id)}</li>
                ))}
              </ol>
            </div>
          ))}
        </div>
      </Section>
      <Section
        title="Verdicts per pair"
        id="pairs"
        description="A difference holds only if every value in both justified ranges puts the same one ahead, with intervals apart at the least favourable ends (docs/statistics.md)."
      >
        <DataTable
          caption="Each pair of evaluations"
          columns={["Pair", "Verdict", "Ahead across the range", "Ahead at the endpoint", "Ahead on final runs", "Why"]}
          testId="comparison-pairs"
        >
          {comparison.pairs.map((pair) => (
            <tr key={`${pair.a}/${pair.b}`} data-testid="pair-verdict">
              <RowHead>
                {name(pair.a)} vs {name(pair.b)}
              </RowHead>
              <Td>
                <Badge tone={VERDICT_TONES[pair.verdict]}>{pair.verdict}</Badge>
              </Td>
              <Td>{name(pair.leader)}</Td>
              <Td>{name(pair.leaderEndpoint)}</Td>
              <Td>{name(pair.leaderFinalOnly)}</Td>
              <Td className="text-muted-foreground">{pair.why}</Td>
            </tr>
          ))}
        </DataTable>
      </Section>
      <Section
        title="Sensitivity to the exclusion rule"
        id="rule-sensitivity"
        description="The ranking by the rate under the applied rule and under each other treatment of unresolved runs, with a warning for each pair whose order changes between them."
      >
        {comparison.ruleWarnings.length > 0 ? (
          <Alert tone="warning" role="alert" title="A conclusion changes between rules" data-testid="comparison-rule-warnings">
            <ul className="list-disc space-y-1 pl-5">
              {comparison.ruleWarnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          </Alert>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="comparison-rule-warnings">
            Every pair keeps its order under every rule.
          </p>
        )}
        <DataTable caption="Ranking under each rule, best first" columns={["Rule", "Ranking"]} testId="comparison-rule-rankings">
          {comparison.ruleSensitivity.map((row) => (
            <tr key={row.rule}>
              <RowHead>{row.rule}</RowHead>
              <Td>{row.ranking.map(name).join(", ")}</Td>
            </tr>
          ))}
        </DataTable>
      </Section>
      <ComparisonAttack evaluations={comparison.evaluations} />
    </>
  );
}
