import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Panel } from "@/components/ui/card";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { conditionLabel } from "@/lib/format/runs";
import type { CanaryResults, CanarySurfaceResult } from "@/lib/canary/canary-results-store";
import type { CanaryPlant, CanaryMatch } from "@/lib/canary/rules";

const SURFACE_LABELS: Record<CanarySurfaceResult["surface"], string> = {
  values: "values of every key B can read",
  operation_list: "the operation list",
  pending_operations: "pending operations",
};
const PLACE_LABELS: Record<CanaryPlant["place"], string> = {
  namespace_keys: "key",
  pending_operation: "pending write",
  shared_space: "shared space",
};

function Planted({ planted }: { planted: unknown }) {
  const plants = Array.isArray(planted) ? (planted as CanaryPlant[]) : [];
  if (plants.length === 0) return <span className="text-muted-foreground">nothing</span>;
  return (
    <ul className="space-y-0.5">
      {plants.map((p) => (
        <li key={p.handle}>
          {PLACE_LABELS[p.place]} <code>{p.key}</code> <span className="text-muted-foreground">({p.handle.slice(0, 11)}…)</span>
        </li>
      ))}
    </ul>
  );
}

function Evidence({ row }: { row: CanarySurfaceResult }) {
  const evidence = row.evidence as { matches?: CanaryMatch[]; searched?: { namespaces: string[]; items: number } } | null;
  const match = evidence?.matches?.[0];
  if (match) {
    return "handle" in match ? (
      <span>
        operation <code>{match.handle}</code> ({match.status}) carries it
      </span>
    ) : (
      <span>
        key <code>{match.key}</code> holds <code>{JSON.stringify(match.value)}</code>
      </span>
    );
  }
  return (
    <span className="text-muted-foreground">
      searched {evidence?.searched?.items ?? 0} item(s) in {evidence?.searched?.namespaces.length ?? 0} namespace(s): no match
    </span>
  );
}

/** The canary reset check's table: per condition and surface, planted, found n/N, evidence, expected, held n/N. */
export function CanaryReport({ results }: { results: CanaryResults }) {
  // Misses of two kinds: B found a canary a reset should have removed, or B missed one that shared state left in reach.
  const missedWhere = (expectedFound: boolean) =>
    results.surfaces.filter((row) => row.expectedFound === expectedFound).reduce((sum, row) => sum + row.trials - row.held, 0);
  const leaked = missedWhere(false);
  const unseen = missedWhere(true);
  return (
    <Panel
      id="canary"
      className="mt-6"
      title="Canary reset check"
      description="Run A plants a random canary in every key of its namespace, a pending write and the shared key space; the condition's reset runs; run B searches every surface it can reach over the service's HTTP API. Expected: only shared state lets B find it."
    >
      <div className="space-y-3">
        <p className="text-sm">
          Expectations held:{" "}
          <span className="tabular-nums" data-testid="canary-held">
            {results.held.n}/{results.held.N}
          </span>{" "}
          (condition, trial and surface)
        </p>
        {leaked + unseen > 0 ? (
          <Alert tone="warning" role="alert">
            {leaked > 0 ? (
              <p>
                {leaked} surface check(s) found the canary where the condition should have removed or hidden it: that reset or namespace did
                not hold.
              </p>
            ) : null}
            {unseen > 0 ? (
              <p>
                {unseen} surface check(s) under shared state did not find the canary that A planted: the check could not see it, so its “not
                found” elsewhere proves less.
              </p>
            ) : null}
          </Alert>
        ) : null}
        <DataTable
          caption="Per condition and surface, over every trial"
          columns={["condition", "surface", "planted (first trial)", "found", "evidence", "expected", "held"]}
          numericColumns={[3, 6]}
          testId="canary-table"
        >
          {results.surfaces.map((row) => (
            <tr key={`${row.condition}:${row.surface}`} data-testid={`canary-${row.condition}-${row.surface}`}>
              <RowHead>{conditionLabel(row.condition)}</RowHead>
              <Td>{SURFACE_LABELS[row.surface]}</Td>
              <Td>
                <Planted planted={row.planted} />
              </Td>
              <Td numeric data-testid="canary-found">
                {row.found}/{row.trials}
              </Td>
              <Td>
                <Evidence row={row} />
              </Td>
              <Td>{row.expectedFound ? "found" : "not found"}</Td>
              <Td numeric>
                <Badge tone={row.held === row.trials ? "success" : "danger"} data-testid="canary-row-held">
                  {row.held}/{row.trials}
                </Badge>
              </Td>
            </tr>
          ))}
        </DataTable>
      </div>
    </Panel>
  );
}
