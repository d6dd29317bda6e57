import Link from "next/link";
import { CODE_INFO, FIELD_INFO, REVIEW_CODES, REVIEW_FIELDS } from "@/lib/review/codes";
import type { ConsensusMatrix, Table3Row } from "@/lib/review/table3";

// The protocol matrix and Table 3: on /protocols and on a shared link of the matrix.

/** Protocols × fields, each cell its code letter and label (colour is only a second signal); uncoded cells say so. */
export function MatrixTable({ protocols, matrix, caption }: { protocols: { id?: string; name: string }[]; matrix: ConsensusMatrix; caption: string }) {
  return (
      <div className="table-scroll">
        <table data-testid="protocol-matrix">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Protocol</th>
              {REVIEW_FIELDS.map((f) => (
                <th scope="col" key={f}>
                  {FIELD_INFO[f].label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {protocols.map((p) => (
              <tr key={p.name}>
                <th scope="row">
                  {p.id ? <Link href={`/protocols/${p.id}`}>{p.name}</Link> : p.name}
                </th>
                {REVIEW_FIELDS.map((f) => {
                  const code = matrix[p.name]?.[f];
                  return (
                    <td key={f} className={code ? `code code-${code}` : "muted"}>
                      {code ? (
                        <>
                          <strong>{code}</strong> <span className="code-label">{CODE_INFO[code].label}</span>
                        </>
                      ) : (
                        <em>uncoded</em>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>

  );
}

/** Table 3 from the consensus beside the paper's counts, and every mismatch with the cells behind it. */
export function Table3Table({ rows }: { rows: Table3Row[] }) {
  return (
    <>
      <div className="table-scroll">
        <table data-testid="table3">
          <caption>Protocols per code and field: this instance&apos;s consensus (the paper&apos;s published count)</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              {REVIEW_CODES.map((c) => (
                <th scope="col" key={c}>
                  {CODE_INFO[c].label}
                </th>
              ))}
              <th scope="col">Uncoded</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.field}>
                <th scope="row">{row.label}</th>
                {REVIEW_CODES.map((c) => {
                  const differs = row.counts[c] !== row.paper[c];
                  return (
                    <td key={c} className={differs ? "num fail" : "num"}>
                      {row.counts[c]} ({row.paper[c]}){differs ? " ≠" : ""}
                    </td>
                  );
                })}
                <td className="num">{row.uncoded}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.some((r) => r.mismatches.length) ? (
        <ul data-testid="table3-mismatches">
          {rows.flatMap((r) =>
            r.mismatches.map((m) => (
              <li key={`${r.field}-${m.code}`}>
                {r.label}, {m.code}: {m.explanation}
              </li>
            )),
          )}
        </ul>
      ) : (
        <p className="pass">Every count equals the paper&apos;s Table 3.</p>
      )}

    </>
  );
}
