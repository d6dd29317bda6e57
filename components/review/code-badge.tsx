import { Badge, type Tone } from "@/components/ui/badge";
import { CODE_INFO, type ReviewCode } from "@/lib/review/codes";

const TONES: Record<ReviewCode, Tone> = { E: "success", P: "warning", NR: "danger", NA: "neutral" };

/** A review code as its letter and its label; the tint only repeats them. */
export function CodeBadge({ code }: { code: ReviewCode }) {
  return (
    <Badge tone={TONES[code]}>
      <strong>{code}</strong> <span className="font-normal">{CODE_INFO[code].label}</span>
    </Badge>
  );
}
