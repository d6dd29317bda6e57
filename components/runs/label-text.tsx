import { Badge } from "@/components/ui/badge";

/** A run label written out in words; the tint repeats it and is never the only signal. */
export function LabelText({ value }: { value: string | null }) {
  if (value === null) return <span className="text-muted-foreground">none</span>;
  return (
    <Badge
      tone={value === "success" ? "success" : value === "failure" ? "danger" : "neutral"}
      className={value === "unresolved" ? "italic" : undefined}
    >
      {value}
    </Badge>
  );
}

/** Whether the endpoint and terminal labels agree, in words with a symbol. */
export function AgreementText({ value }: { value: "agree" | "disagree" | null }) {
  if (value === null) return <span className="text-muted-foreground">n/a</span>;
  return (
    <Badge tone={value === "disagree" ? "warning" : "neutral"}>
      <span aria-hidden="true">{value === "agree" ? "= " : "≠ "}</span>
      {value}
    </Badge>
  );
}

/** Exposure is recorded on B runs only. */
export function ExposureText({ value }: { value: boolean | null }) {
  if (value === null) return <span className="text-muted-foreground">n/a</span>;
  return value ? <Badge tone="danger">exposed</Badge> : <span>not exposed</span>;
}
