import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { cn } from "@/components/ui/cn";
import { CODE_INFO, FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS } from "@/lib/review/codes";
import type { ConsensusMatrix, Table3Row } from "@/lib/review/table3";
import { CodeBadge } from "./code-badge";

// The protocol matrix and Table 3: on /protocols and on a shared link of the matrix.

/** Protocols × fields, each cell its code letter and label (colour is only a second signal); uncoded cells say so. */
export function MatrixTable({
  protocols,
  matrix,
  caption,
}: {
  protocols: { id?: string; name: string; fromPaper?: boolean; retired?: boolean }[];
  matrix: ConsensusMatrix;
  caption: string;
}) {
  const uncoded = protocols.some((p) => REVIEW_FIELDS.some((f) => !matrix[p.name]?.[f]));
  return (
    <div className="space-y-2">
      <DataTable caption={caption} testId="protocol-matrix" columns={["Protocol", ...REVIEW_FIELDS.map((f) => FIELD_INFO[f].label)]}>
        {protocols.map((p) => (
          <tr key={p.name}>
            <RowHead>
              <span className="inline-flex flex-wrap items-center gap-2">
                {p.id ? <Link href={`/protocols/${p.id}`}>{p.name}</Link> : p.name}
                {p.fromPaper ? <Badge>reference</Badge> : null}
                {p.retired ? <Badge tone="warning">retired</Badge> : null}
              </span>
            </RowHead>
            {REVIEW_FIELDS.map((f) => {
              const code = matrix[p.name]?.[f];
              return <Td key={f}>{code ? <CodeBadge code={code} /> : <em className="text-muted-foreground">uncoded</em>}</Td>;
            })}
          </tr>
        ))}
      </DataTable>
      {uncoded ? (
        <p className="text-sm text-muted-foreground" data-testid="matrix-uncoded-note">
          <em>uncoded</em>: no consensus yet. Reviewers code a cell (blind until they have coded the protocol's three fields), then an
          editor reconciles their codes; a reference protocol starts with the paper&apos;s codes only where the paper publishes them.
        </p>
      ) : null}
    </div>
  );
}

/** Table 3 from the consensus beside the paper's counts, and every mismatch with the cells behind it. */
export function Table3Table({ rows }: { rows: Table3Row[] }) {
  const uncoded = rows.some((r) => r.uncoded > 0);
  return (
    <div className="space-y-3">
      {uncoded ? (
        <p className="text-sm" data-testid="table3-uncoded-note">
          The paper publishes Table 3&apos;s counts over its ten protocols but not every protocol&apos;s code, so some cells start uncoded
          here. Until reviewers code them and an editor reconciles, a count can fall short of the paper&apos;s: ≠ marks each count that
          differs, and the list below names the cells behind it.
        </p>
      ) : null}
      <DataTable
        caption="Protocols per code and field: this instance's consensus (the paper's published count)"
        testId="table3"
        columns={["Field", ...REVIEW_CODES.map((c) => CODE_INFO[c].label), "Uncoded"]}
        numericColumns={[1, 2, 3, 4, 5]}
      >
        {rows.map((row) => (
          <tr key={row.field}>
            <RowHead>{row.label}</RowHead>
            {REVIEW_CODES.map((c) => {
              const differs = row.counts[c] !== row.paper[c];
              return (
                // A shortfall that uncoded cells can explain is a warning; a difference among coded cells alone, an error.
                <Td key={c} numeric className={differs ? cn("font-semibold", row.uncoded > 0 ? "text-warning" : "text-danger") : undefined}>
                  {row.counts[c]} ({row.paper[c]}){differs ? " ≠" : ""}
                </Td>
              );
            })}
            <Td numeric>{row.uncoded}</Td>
          </tr>
        ))}
      </DataTable>
      {rows.some((r) => r.mismatches.length) ? (
        <Alert tone="warning" role="note" title="Where the consensus differs from the paper's Table 3">
          <ul className="list-disc space-y-1 pl-5" data-testid="table3-mismatches">
            {rows.flatMap((r) =>
              r.mismatches.map((m) => (
                <li key={`${r.field}-${m.code}`}>
                  {r.label}, {m.code}: {m.explanation}
                </li>
              )),
            )}
          </ul>
        </Alert>
      ) : (
        <Alert tone="success" role="note">
          <p>Every count equals the paper&apos;s Table 3.</p>
        </Alert>
      )}
    </div>
  );
}
