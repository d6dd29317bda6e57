// The protocol review's vocabulary, as the paper defines it (the paper, §5, Table 3 and Table A.1).

export const REVIEW_FIELDS = ["open_work", "reset_or_retention", "separate_evidence"] as const;
export type ReviewField = (typeof REVIEW_FIELDS)[number];

export const FIELD_INFO: Record<ReviewField, { label: string; table3Label: string; definition: string }> = {
  open_work: {
    label: "Open work",
    table3Label: "Open or descendant work",
    definition:
      "Whether operations can remain active at the endpoint: whether descendant processes and queued actions finish or are cancelled before scoring, and whether delayed effects can still change the scored state.",
  },
  reset_or_retention: {
    label: "Reset or retention",
    table3Label: "Reset or deliberate retention",
    definition: "What state can persist between runs, and how it is reset or deliberately retained.",
  },
  separate_evidence: {
    label: "Separate evidence",
    table3Label: "Evidence for separate scoring",
    definition: "What supports counting runs separately: which resources a reset covers and how its successful completion is verified.",
  },
};

export const REVIEW_CODES = ["E", "P", "NR", "NA"] as const;
export type ReviewCode = (typeof REVIEW_CODES)[number];

export const CODE_INFO: Record<ReviewCode, { label: string; definition: string }> = {
  E: { label: "Explicit", definition: "A public source states the rule and the resources it covers." },
  P: { label: "Partial", definition: "The rule is stated but its scope or evidence is incomplete." },
  NR: { label: "Not reported", definition: "No statement was found in the reviewed sources." },
  NA: { label: "Not applicable", definition: "The declared execution model excludes the kind of unfinished operation being coded." },
};

/** E and P claim that a source says something: they need the reviewer's basis for it. */
export const codeNeedsBasis = (code: ReviewCode) => code === "E" || code === "P";
