import { renderCell, type GridCell } from "@/components/ui/grid-cell";

/** A run label written out in words; the tint repeats it and is never the only signal. */
export function labelCell(value: string | null): GridCell {
  if (value === null) return { muted: "none" };
  return {
    badge: value === "success" ? "success" : value === "failure" ? "danger" : "neutral",
    text: value,
    ...(value === "unresolved" ? { italic: true } : {}),
  };
}

/** Whether the endpoint and terminal labels agree, in words with a symbol. */
export function agreementCell(value: "agree" | "disagree" | null): GridCell {
  if (value === null) return { muted: "n/a" };
  return { badge: value === "disagree" ? "warning" : "neutral", symbol: value === "agree" ? "= " : "≠ ", text: value };
}

/** Exposure is recorded on B runs only. */
export function exposureCell(value: boolean | null): GridCell {
  if (value === null) return { muted: "n/a" };
  return value ? { badge: "danger", text: "exposed" } : "not exposed";
}

export const LabelText = ({ value }: { value: string | null }) => renderCell(labelCell(value));
export const AgreementText = ({ value }: { value: "agree" | "disagree" | null }) => renderCell(agreementCell(value));
export const ExposureText = ({ value }: { value: boolean | null }) => renderCell(exposureCell(value));
