import type { RunShareContent } from "@/lib/share/resources";

const LABEL_FIELDS = [
  ["Test", "test"],
  ["Condition", "condition"],
  ["Schedule", "scheduleId"],
  ["Nominal delay (ms)", "delayMs"],
  ["Repetition", "repetition"],
  ["Role", "role"],
  ["Endpoint label", "endpointLabel"],
  ["Terminal label", "terminalLabel"],
  ["Recorded label", "recordedLabel"],
  ["Final at scoring", "finalAtScoring"],
  ["Exposure", "exposure"],
  ["Classification", "classification"],
  ["Inherited state", "inheritedState"],
  ["Measured delay (ms)", "measuredDelayMs"],
  ["Started (service ms)", "startedAtMs"],
  ["Endpoint (service ms)", "endpointAtMs"],
  ["Scored (service ms)", "scoredAtMs"],
  ["Ended (service ms)", "endedAtMs"],
] as const;

const show = (value: unknown) => (value === null || value === undefined ? "none" : String(value));

/** One run as shared: its labels, times, evidence and open-effects records, read-only. */
export function RunReport({ content }: { content: RunShareContent }) {
  const { run, experiment, openEffects } = content;
  return (
    <>
      <h1>
        Run <code>{run.id}</code>
      </h1>
      <p className="muted">
        Of experiment <code>{experiment.id}</code> ({experiment.state}).
      </p>
      <dl className="facts">
        {LABEL_FIELDS.map(([label, key]) => (
          <div key={key} className="fact">
            <dt>{label}</dt>
            <dd>{show(run[key])}</dd>
          </div>
        ))}
      </dl>
      <h2>Open effects ({openEffects.length})</h2>
      {openEffects.length === 0 ? (
        <p className="muted">This run left no open-effects record.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption>Open-effects records (paper Table C.1)</caption>
            <thead>
              <tr>
                <th scope="col">Handle</th>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Status at endpoint</th>
                <th scope="col">Terminal status</th>
                <th scope="col">Cross-run route</th>
              </tr>
            </thead>
            <tbody>
              {openEffects.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    <code>{e.observationHandle}</code>
                  </th>
                  <td>{e.action}</td>
                  <td>{e.resource}</td>
                  <td>{e.endpointStatus}</td>
                  <td>{e.terminalStatus}</td>
                  <td>{e.crossRunRoute}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Evidence</h2>
      <pre className="evidence-json">{JSON.stringify(run.evidence, null, 2)}</pre>
    </>
  );
}
