"use client";
import { useState } from "react";
import { Alert, FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, describedBy } from "@/components/ui/field";
import { FileDropZone } from "@/components/ui/file-drop-zone";
import { DataTable, Td } from "@/components/ui/table";
import { addImportReports, emptyImportReport, importReportSchema, type ImportReport } from "@/lib/importers/report";

interface Progress {
  file: string;
  sent: number;
  total: number;
}

/** One file as the raw body of POST /api/v1/imports, its upload progress reported as it goes. XMLHttpRequest: fetch reports no upload progress. */
function uploadOne(file: File, query: URLSearchParams, onProgress: (sentOfFile: number) => void): Promise<ImportReport> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    const asSkipped = (reason: string, field?: string): ImportReport => ({
      ...emptyImportReport(),
      files: 1,
      skipped: [{ file: file.name, reason, ...(field && { field }) }],
    });
    request.open("POST", `/api/v1/imports?${new URLSearchParams({ ...Object.fromEntries(query), file: file.name })}`);
    request.setRequestHeader("content-type", "application/octet-stream");
    request.upload.onprogress = (event) => onProgress(event.loaded);
    request.onerror = () => resolve(asSkipped("the upload did not complete (the connection failed): try again"));
    request.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // left null: the status says what happened
      }
      const report = importReportSchema.safeParse(body);
      if (request.status === 200 && report.success) return resolve(report.data);
      const refusal = (body as { error?: { message?: string; field?: string } } | null)?.error;
      const message = refusal?.message ?? `the server answered ${request.status}`;
      resolve(
        request.status >= 500
          ? { ...emptyImportReport(), files: 1, failed: [{ file: file.name, error: message }] }
          : asSkipped(message, refusal?.field),
      );
    };
    request.send(file);
  });
}

/** Several logs uploaded one after another with one progress bar; the summed report at the end. */
export function ImportLogsForm() {
  const [files, setFiles] = useState<File[]>([]);
  const [evaluation, setEvaluation] = useState("");
  const [threshold, setThreshold] = useState("");
  const [scorer, setScorer] = useState("");
  const [progress, setProgress] = useState<Progress | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (files.length === 0) return setError("Choose at least one log file.");
    if (threshold.trim() !== "" && !Number.isFinite(Number(threshold))) return setError("Threshold must be a number, e.g. 0.5.");
    setError(null);
    setReport(null);
    const query = new URLSearchParams({
      ...(evaluation.trim() && { evaluation: evaluation.trim() }),
      ...(threshold.trim() && { threshold: threshold.trim() }),
      ...(scorer.trim() && { scorer: scorer.trim() }),
    });
    const total = files.reduce((sum, file) => sum + file.size, 0);
    let done = 0;
    let sum = emptyImportReport();
    for (const file of files) {
      setProgress({ file: file.name, sent: done, total });
      sum = addImportReports(
        sum,
        await uploadOne(file, query, (sentOfFile) => setProgress({ file: file.name, sent: done + sentOfFile, total })),
      );
      done += file.size;
    }
    setProgress(null);
    setReport(sum);
    // Sent: the report now says what became of each file, and the next drop starts a new batch.
    setFiles([]);
  }

  const busy = progress !== null;
  return (
    <div className="space-y-6">
      <form onSubmit={submit} className="space-y-4" aria-describedby={error ? "import-error" : undefined}>
        <Field
          id="import-files"
          label="Log files"
          hint="AgentDojo run logs (.json), Inspect logs (.json, .eval), or a zip of them; several files at once."
        >
          <FileDropZone files={files} onFiles={setFiles} disabled={busy} />
        </Field>
        <Field
          id="import-evaluation"
          label="Evaluation (optional)"
          hint="Every run goes to this evaluation; left empty, each AgentDojo pipeline and each Inspect log gets its own."
        >
          <Input
            id="import-evaluation"
            value={evaluation}
            maxLength={200}
            disabled={busy}
            onChange={(e) => setEvaluation(e.target.value)}
            aria-describedby={describedBy("import-evaluation", { hint: true })}
          />
        </Field>
        <Field
          id="import-threshold"
          label="Score threshold (optional)"
          hint="Inspect scores at or above it are successes (default 1: full credit)."
        >
          <Input
            id="import-threshold"
            inputMode="decimal"
            value={threshold}
            disabled={busy}
            onChange={(e) => setThreshold(e.target.value)}
            aria-describedby={describedBy("import-threshold", { hint: true })}
          />
        </Field>
        <Field
          id="import-scorer"
          label="Labelling scorer (optional)"
          hint="The Inspect scorer whose values label the runs, by its name in the log (e.g. match); left empty, the first scorer. Every scorer's rate is shown either way."
        >
          <Input
            id="import-scorer"
            value={scorer}
            maxLength={200}
            disabled={busy}
            onChange={(e) => setScorer(e.target.value)}
            aria-describedby={describedBy("import-scorer", { hint: true })}
          />
        </Field>
        <div id="import-error">
          <FormAlert text={error} />
        </div>
        <Button type="submit" variant="primary" disabled={busy} data-testid="import-submit">
          {busy ? "Importing…" : "Import"}
        </Button>
      </form>
      {progress && (
        <div className="space-y-1" data-testid="import-progress">
          <progress className="w-full" max={progress.total || 1} value={progress.sent} aria-label="Upload progress" />
          <p className="text-sm">Sending {progress.file}…</p>
        </div>
      )}
      {report && <ImportReportView report={report} />}
    </div>
  );
}

function ImportReportView({ report }: { report: ImportReport }) {
  return (
    <section className="space-y-3" data-testid="import-report" aria-label="Import report">
      <p>
        {report.files} file(s): {report.imported} imported, {report.unchanged} unchanged (already imported), {report.skipped.length}{" "}
        skipped, {report.failed.length} failed; {report.runs} run(s).
        {report.incomplete.length > 0 && ` ${report.incomplete.length} imported incomplete.`}
        {report.policyVersions.length > 0 &&
          ` ${report.policyVersions.length} effect-policy version(s) made with the importer's classes (below).`}
      </p>
      {report.elsewhere.length > 0 && (
        <Alert tone="warning" title="Some of these runs are in another evaluation too" data-testid="import-elsewhere">
          <ul className="list-disc pl-6">
            {report.elsewhere.map((e) => (
              <li key={`${e.evaluationId} ${e.alsoInId}`}>
                {e.runs} run(s) stored in <a href={`/evaluations/${e.evaluationId}`}>{e.evaluation}</a> are also in{" "}
                <a href={`/evaluations/${e.alsoInId}`}>{e.alsoIn}</a>, with the same content: the same log imported twice counts them in
                both. Delete the evaluation you did not mean from its page if so.
              </li>
            ))}
          </ul>
        </Alert>
      )}
      {report.unlabelled.length > 0 && (
        <Alert
          tone="warning"
          title="Some runs have no label: their labelling scorer's values are not labels"
          data-testid="import-unlabelled"
        >
          <ul className="list-disc pl-6">
            {report.unlabelled.map((u) => (
              <li key={`${u.file} ${u.scorer}`}>
                {u.file}: {u.runs} run(s) unscored, scorer <code>{u.scorer}</code> recorded values that are no label (a dict or a list).
                {u.readable.length > 0
                  ? ` Readable instead: ${u.readable.join(", ")}; import the file again with the labelling scorer set to one of them.`
                  : " No other scorer of the log has readable values."}
              </li>
            ))}
          </ul>
        </Alert>
      )}
      {report.evaluations.length > 0 && (
        <ul className="list-disc pl-6" data-testid="import-evaluations">
          {report.evaluations.map((e) => (
            <li key={e.id}>
              <a href={`/evaluations/${e.id}`}>{e.name}</a>: {e.runs} run(s)
            </li>
          ))}
        </ul>
      )}
      {report.policyVersions.length > 0 && (
        <DataTable
          caption="Effect-policy versions made: the importer's classes for tools the evaluation's policy left unclassified (its own classes kept)"
          columns={["Evaluation", "Version", "Classes added"]}
          testId="import-policy-versions"
        >
          {report.policyVersions.map((p, i) => (
            <tr key={`p${i}`}>
              <Td>{p.evaluation}</Td>
              <Td>{p.version}</Td>
              <Td>
                {Object.entries(p.adopted)
                  .map(([tool, cls]) => `${tool}: ${cls}`)
                  .join(", ")}
              </Td>
            </tr>
          ))}
        </DataTable>
      )}
      {report.skipped.length + report.failed.length > 0 && (
        <DataTable caption="Files not imported" columns={["File", "Outcome", "Why"]} testId="import-not-imported">
          {report.skipped.map((s, i) => (
            <tr key={`s${i}`}>
              <Td>{s.file}</Td>
              <Td>{s.field ? `refused (${s.field})` : "skipped"}</Td>
              <Td>{s.reason}</Td>
            </tr>
          ))}
          {report.failed.map((f, i) => (
            <tr key={`f${i}`}>
              <Td>{f.file}</Td>
              <Td>failed (an importer bug)</Td>
              <Td>{f.error}</Td>
            </tr>
          ))}
        </DataTable>
      )}
      {report.incomplete.length > 0 && (
        <DataTable
          caption="Imported incomplete: the log holds fewer samples than it says it completed"
          columns={["File", "Samples held", "Missing"]}
          testId="import-incomplete"
        >
          {report.incomplete.map((f, i) => (
            <tr key={`i${i}`}>
              <Td>{f.file}</Td>
              <Td>
                incomplete: {f.found}/{f.expected}
              </Td>
              <Td>
                {f.missing.length > 0
                  ? f.missing.join(", ") + (f.missing.length < f.expected - f.found ? ", …" : "")
                  : `${f.expected - f.found} unnamed`}
              </Td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
