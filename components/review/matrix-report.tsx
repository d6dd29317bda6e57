import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { CODE_INFO, FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS } from "@/lib/review/codes";
import { restsOnOneReviewer, reviewerCount, type CellReviewers, type ConsensusMatrix, type Table3Row } from "@/lib/review/table3";
import { CodeBadge } from "./code-badge";

// The protocol matrix and Table 3: on /protocols and on a shared link of the matrix.

/**
 * Protocols × fields, each cell its code letter and label (colour is only a second signal); uncoded cells say so.
 * Given the reviewer counts (the consensus view), a consensus resting on fewer than two reviewers' codes is marked with its count.
 */
export function MatrixTable({
  protocols,
  matrix,
  caption,
  reviewers,
}: {
  protocols: { id?: string; name: string; fromPaper?: boolean; retired?: boolean }[];
  matrix: ConsensusMatrix;
  caption: string;
  reviewers?: CellReviewers;
}) {
  const uncoded = protocols.some((p) => REVIEW_FIELDS.some((f) => !matrix[p.name]?.[f]));
  const single = (protocol: string, field: (typeof REVIEW_FIELDS)[number]) =>
    reviewers !== undefined && matrix[protocol]?.[field] !== undefined && restsOnOneReviewer(reviewers[protocol]?.[field]);
  const anySingle = protocols.some((p) => REVIEW_FIELDS.some((f) => single(p.name, f)));
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
              return (
                <Td key={f}>
                  {code ? (
                    <span className="inline-flex flex-wrap items-center gap-1.5">
                      <CodeBadge code={code} />
                      {single(p.name, f) ? (
                        <Badge tone="warning" data-testid="single-reviewer">
                          {reviewerCount(reviewers?.[p.name]?.[f] ?? 0)}
                        </Badge>
                      ) : null}
                    </span>
                  ) : (
                    <em className="text-muted-foreground">uncoded</em>
                  )}
                </Td>
              );
            })}
          </tr>
        ))}
      </DataTable>
      {anySingle ? (
        <p className="text-sm text-muted-foreground" data-testid="matrix-single-reviewer-note">
          <Badge tone="warning">1 reviewer</Badge>: the consensus rests on one reviewer&apos;s code (the paper&apos;s count as one: one
          person coded them all), so no second reading agreed with it.
        </p>
      ) : null}
      {uncoded ? (
        <p className="text-sm text-muted-foreground" data-testid="matrix-uncoded-note">
          <em>uncoded</em>: no consensus yet. Reviewers code a cell (blind until they have coded the protocol's three fields), then an
          editor reconciles their codes; a reference protocol starts with the paper&apos;s codes only where the paper publishes them.
        </p>
      ) : null}
    </div>
  );
}

/**
 * Table 3 from the consensus beside the paper's counts. A count differs only where the coded cells
 * contradict the paper; a count the uncoded cells can still make up is pending, not a difference.
 * With reviewer counts, each row says how many of its counted cells rest on one reviewer's code.
 */
export function Table3Table({ rows }: { rows: Table3Row[] }) {
  const uncoded = rows.some((r) => r.uncoded > 0);
  const mismatched = rows.some((r) => r.mismatches.length);
  const pending = rows.filter((r) => r.shortfalls?.length);
  const withReviewers = rows.every((r) => r.singleReviewer !== undefined);
  const counted = (row: Table3Row) => REVIEW_CODES.reduce((sum, c) => sum + row.counts[c], 0);
  return (
    <div className="space-y-3">
      {uncoded ? (
        <p className="text-sm" data-testid="table3-uncoded-note">
          The paper publishes Table 3&apos;s counts over its ten protocols but not every protocol&apos;s code, so some cells start uncoded
          here. Until reviewers code them and an editor reconciles, a count can fall short of the paper&apos;s: that is pending, not a
          difference. ≠ marks a count the coded cells alone make differ.
        </p>
      ) : null}
      <DataTable
        caption="Protocols per code and field: this instance's consensus (the paper's published count)"
        testId="table3"
        columns={[
          "Field",
          ...REVIEW_CODES.map((c) => CODE_INFO[c].label),
          "Uncoded",
          ...(withReviewers ? ["Resting on one reviewer"] : []),
        ]}
        numericColumns={[1, 2, 3, 4, 5, 6]}
      >
        {rows.map((row) => (
          <tr key={row.field}>
            <RowHead>{row.label}</RowHead>
            {REVIEW_CODES.map((c) => {
              const differs = row.mismatches.some((m) => m.code === c);
              const short = row.shortfalls?.some((m) => m.code === c);
              return (
                <Td key={c} numeric className={differs ? "font-semibold text-danger" : short ? "text-muted-foreground" : undefined}>
                  {row.counts[c]} ({row.paper[c]}){differs ? " ≠" : ""}
                </Td>
              );
            })}
            <Td numeric>{row.uncoded}</Td>
            {row.singleReviewer ? (
              <Td numeric data-testid="table3-single-reviewer">
                {row.singleReviewer.length}/{counted(row)}
              </Td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      {mismatched ? (
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
      ) : pending.length ? (
        <Alert tone="info" role="note" data-testid="table3-pending">
          <p>
            No coded cell contradicts the paper&apos;s Table 3. Still to be coded:{" "}
            {pending.map((r) => `${r.label.toLowerCase()}, ${r.uncoded} cell${r.uncoded === 1 ? "" : "s"}`).join("; ")}.
          </p>
        </Alert>
      ) : (
        <Alert tone="success" role="note">
          <p>Every count equals the paper&apos;s Table 3.</p>
        </Alert>
      )}
      {rows.some((r) => r.singleReviewer?.length) ? (
        <p className="text-sm text-muted-foreground" data-testid="table3-single-reviewer-note">
          Resting on one reviewer: counted cells whose consensus rests on fewer than two reviewers&apos; codes (the paper&apos;s count as
          one), of the cells counted in the row.
        </p>
      ) : null}
    </div>
  );
}
