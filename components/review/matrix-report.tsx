import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { DataTable, RowHead, Td } from "@/components/ui/table";
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
  return (
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
  );
}

/** Table 3 from the consensus beside the paper's counts, and every mismatch with the cells behind it. */
export function Table3Table({ rows }: { rows: Table3Row[] }) {
  return (
    <div className="space-y-3">
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
                <Td key={c} numeric className={differs ? "font-semibold text-danger" : undefined}>
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
