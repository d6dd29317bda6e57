import styles from "./runs.module.css";

/** A run label written out in words; colour repeats it and is never the only signal. */
export function LabelText({ value }: { value: string | null }) {
  if (value === null) return <span className="muted">none</span>;
  const className = value === "success" ? "pass" : value === "failure" ? "fail" : styles.unresolved;
  return <span className={className}>{value}</span>;
}

/** Whether the endpoint and terminal labels agree, in words with a symbol. */
export function AgreementText({ value }: { value: "agree" | "disagree" | null }) {
  if (value === null) return <span className="muted">n/a</span>;
  return (
    <span className={value === "disagree" ? "fail" : undefined}>
      <span aria-hidden="true">{value === "agree" ? "= " : "≠ "}</span>
      {value}
    </span>
  );
}

/** Exposure is recorded on B runs only. */
export function ExposureText({ value }: { value: boolean | null }) {
  if (value === null) return <span className="muted">n/a</span>;
  return value ? <span className="fail">exposed</span> : <span>not exposed</span>;
}
