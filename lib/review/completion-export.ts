// A completion argument as Markdown, LaTeX (for an appendix) and JSON. Pure: the route and the
// share page call these on the same view.
import { FIELD_INFO, REVIEW_FIELDS, type ReviewCode, type ReviewField } from "./codes";
import { QUESTIONS, ROUTE_KIND_LABELS, TREATMENT_LABELS, type CompletionArgument, type EvidenceLink } from "./completion-schema";
import { evidenceKey, type ArgumentStatus, type EvidenceState } from "./completion-status";
import { latexEscape } from "./latex";

/** What an export needs: a subset of the stored view, so a frozen share snapshot renders the same. */
export interface ArgumentExport {
  protocol: { name: string; benchmarkVersion: string | null; scope: string | null };
  consensus: Partial<Record<ReviewField, ReviewCode>>;
  current: { version: number; updatedAt: string; updatedBy: string | null; argument: CompletionArgument } | null;
  evidence: Record<string, EvidenceState & { label: string }>;
  status: ArgumentStatus | null;
}

const describeLink = (link: EvidenceLink, evidence: ArgumentExport["evidence"]) => {
  const item = evidence[evidenceKey(link)];
  const state = item?.state ? ` (${item.state})` : "";
  return `${link.kind.replace("_", " ")} ${item?.label ?? link.id}${state}${link.note ? `: ${link.note}` : ""}`;
};

/** Markdown: headings per question, the routes as a table, flags first so a reader sees them. */
export function argumentMarkdown(view: ArgumentExport): string {
  const md = (text: string) => text.replace(/([\\`*_[\]<>|#])/g, "\\$1");
  const cell = (text: string) => md(text).replace(/\r?\n/g, " ");
  const lines = [`# Completion argument: ${md(view.protocol.name)}`, ""];
  if (view.protocol.benchmarkVersion) lines.push(`Benchmark version: ${md(view.protocol.benchmarkVersion)}`, "");
  if (view.protocol.scope) lines.push(`Declared scope: ${md(view.protocol.scope)}`, "");
  lines.push(
    `Review codes (consensus): ${REVIEW_FIELDS.map((f) => `${FIELD_INFO[f].label} ${view.consensus[f] ?? "uncoded"}`).join("; ")}`,
    "",
  );
  const current = view.current;
  if (!current || !view.status) return [...lines, "No argument has been written yet.", ""].join("\n");
  lines.push(
    `Version ${current.version}, ${current.updatedAt.slice(0, 10)}${current.updatedBy ? ` by ${md(current.updatedBy)}` : ""}. Questions answered: ${view.status.answered}/${view.status.of}.`,
    "",
  );
  if (view.status.flags.length) lines.push("## Flags", "", ...view.status.flags.map((f) => `- ${md(f.message)}`), "");
  for (const q of QUESTIONS) {
    const a = current.argument.questions[q.key];
    lines.push(`## ${q.number}. ${q.text}`, "", a.answer ? md(a.answer) : "_Not answered._", "");
    if (a.answer)
      lines.push(
        `Source: ${a.sourceLocation ? md(a.sourceLocation) : "not given"}; citations: ${a.citations.length ? a.citations.map(md).join("; ") : "none"}; sources read: ${a.sourcesReadOn ?? "not given"}.`,
        "",
      );
    if (q.key === "remaining" && current.argument.routes.length) {
      lines.push("| # | Route | Description | Scope | Treatment | Evidence |", "|---|---|---|---|---|---|");
      current.argument.routes.forEach((r, i) => {
        const scope = r.scope === "in" ? "in" : `out (${r.scopeReason})`;
        const treatment = `${TREATMENT_LABELS[r.treatment]}${r.treatmentNote ? `: ${r.treatmentNote}` : ""}`;
        lines.push(
          `| ${i + 1} | ${ROUTE_KIND_LABELS[r.kind]} | ${cell(r.description)} | ${cell(scope)} | ${cell(treatment)} | ${r.evidence.map((l) => cell(describeLink(l, view.evidence))).join("; ") || "none"} |`,
        );
      });
      lines.push("");
    }
    if (q.key === "finality")
      lines.push(
        "Evidence:",
        "",
        ...(current.argument.evidence.length
          ? current.argument.evidence.map((l) => `- ${md(describeLink(l, view.evidence))}`)
          : ["- none linked"]),
        "",
      );
  }
  return lines.join("\n");
}

/** LaTeX prose: every special character escaped (the table escapes and < > |), paragraphs kept. */
export function latexText(text: string): string {
  return latexEscape(text)
    .replace(/[<>|]/g, (c) => ({ "<": "\\textless{}", ">": "\\textgreater{}", "|": "\\textbar{}" })[c]!)
    .replace(/\r\n/g, "\n")
    .replace(/\n{2,}/g, "\n\n")
    .replace(/(?<!\n)\n(?!\n)/g, "\\\\\n");
}

/** LaTeX for an appendix: a subsection per question, the routes as a booktabs table. */
export function argumentLatex(view: ArgumentExport): string {
  const t = latexText;
  // Inside a table row a line break would end the row: a cell's newlines become spaces.
  const c = (text: string) => latexText(text.replace(/\s*\n\s*/g, " "));
  const lines = [`\\section*{Completion argument: ${t(view.protocol.name)}}`, ""];
  if (view.protocol.benchmarkVersion) lines.push(`Benchmark version: ${t(view.protocol.benchmarkVersion)}.`, "");
  if (view.protocol.scope) lines.push(`Declared scope: ${t(view.protocol.scope)}`, "");
  const current = view.current;
  if (!current || !view.status) return [...lines, "No argument has been written yet.", ""].join("\n");
  lines.push(
    `Version ${current.version} (${current.updatedAt.slice(0, 10)}); questions answered: ${view.status.answered}/${view.status.of}.`,
    "",
  );
  if (view.status.flags.length)
    lines.push("\\paragraph{Flags}", "\\begin{itemize}", ...view.status.flags.map((f) => `  \\item ${t(f.message)}`), "\\end{itemize}", "");
  for (const q of QUESTIONS) {
    const a = current.argument.questions[q.key];
    lines.push(`\\subsection*{${q.number}. ${t(q.text)}}`, "", a.answer ? t(a.answer) : "\\emph{Not answered.}", "");
    if (a.answer && a.sourceLocation)
      lines.push(
        `\\noindent Source: ${t(a.sourceLocation)}${a.citations.length ? `; ${a.citations.map(t).join("; ")}` : ""}${a.sourcesReadOn ? `; read ${a.sourcesReadOn}` : ""}.`,
        "",
      );
    if (q.key === "remaining" && current.argument.routes.length) {
      lines.push(
        "\\begin{tabular}{lp{4cm}lp{3cm}p{3cm}}",
        "\\toprule",
        "Route & Description & Scope & Treatment & Evidence \\\\",
        "\\midrule",
      );
      for (const r of current.argument.routes) {
        const scope = r.scope === "in" ? "in" : `out (${r.scopeReason})`;
        lines.push(
          `${c(ROUTE_KIND_LABELS[r.kind])} & ${c(r.description)} & ${c(scope)} & ${c(TREATMENT_LABELS[r.treatment])} & ${r.evidence.map((l) => c(describeLink(l, view.evidence))).join("; ") || "none"} \\\\`,
        );
      }
      lines.push("\\bottomrule", "\\end{tabular}", "");
    }
    if (q.key === "finality") {
      lines.push(
        current.argument.evidence.length
          ? [
              "\\begin{itemize}",
              ...current.argument.evidence.map((l) => `  \\item ${t(describeLink(l, view.evidence))}`),
              "\\end{itemize}",
            ].join("\n")
          : "No evidence linked.",
        "",
      );
    }
  }
  return lines.join("\n");
}
