// The declared rule's identity: its canonical JSON (keys sorted, no whitespace) and SHA-256, the
// same canonical form the frozen share snapshots are hashed in. A shell beside the pure rule
// because the canonical form lives in lib/share.
import { canonicalJson, contentHash } from "../content-hash";
import { exclusionRuleSchema, type ExclusionRule } from "./exclusion-rule";

export interface RuleIdentity {
  version: number;
  /** SHA-256 (hex) of `canonical`. */
  hash: string;
  canonical: string;
}

export function exclusionRuleIdentity(rule: ExclusionRule): RuleIdentity {
  const parsed = exclusionRuleSchema.parse(rule);
  return { version: parsed.version, hash: contentHash(parsed), canonical: canonicalJson(parsed) };
}
