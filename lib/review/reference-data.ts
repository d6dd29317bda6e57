// The paper's own review data (§5, Tables A.1 and A.2, References), loaded on first start and marked
// as the paper's. Only what the paper gives: codes and ledger rows it does not give stay uncoded.
import type { ReviewCode, ReviewField } from "./codes";

export interface ReferenceProtocol {
  name: string;
  /** The paper's reference number and the reference as printed (the paper, References). */
  referenceNumber: number;
  citation: string;
}

/** The ten protocols in the order the paper lists them (section 5). No links: the seeds print none. */
export const REFERENCE_PROTOCOLS: ReferenceProtocol[] = [
  {
    name: "WebArena",
    referenceNumber: 37,
    citation:
      "S. Zhou, F. F. Xu, H. Zhu, X. Zhou, R. Lo, A. Sridhar, X. Cheng, T. Ou, Y. Bisk, D. Fried, U. Alon, and G. Neubig (2024) WebArena: a realistic web environment for building autonomous agents. In International Conference on Learning Representations.",
  },
  {
    name: "WorkArena",
    referenceNumber: 10,
    citation:
      "A. Drouin, M. Gasse, M. Caccia, et al. (2024) WorkArena: how capable are web agents at solving common knowledge work tasks? In Proceedings of the 41st International Conference on Machine Learning.",
  },
  {
    name: "OSWorld",
    referenceNumber: 31,
    citation:
      "T. Xie, D. Zhang, J. Chen, et al. (2024) OSWorld: benchmarking multimodal agents for open-ended tasks in real computer environments. In Advances in Neural Information Processing Systems.",
  },
  {
    name: "SWE-bench",
    referenceNumber: 16,
    citation:
      "C. E. Jimenez, J. Yang, A. Wettig, S. Yao, K. Pei, O. Press, and K. Narasimhan (2024) SWE-bench: can language models resolve real-world GitHub issues? In International Conference on Learning Representations.",
  },
  {
    name: "tau-bench",
    referenceNumber: 34,
    citation:
      "S. Yao, N. Shinn, P. Razavi, and K. Narasimhan (2024) τ-bench: a benchmark for tool-agent-user interaction in real-world domains. arXiv preprint arXiv:2406.12045.",
  },
  {
    name: "ToolSandbox",
    referenceNumber: 21,
    citation:
      "J. Lu, T. Holleis, Y. Zhang, et al. (2025) ToolSandbox: a stateful, conversational, interactive evaluation benchmark for LLM tool use capabilities. In Findings of the Association for Computational Linguistics: NAACL 2025.",
  },
  {
    name: "TheAgentCompany",
    referenceNumber: 32,
    citation:
      "F. F. Xu, Y. Song, B. Li, et al. (2024) TheAgentCompany: benchmarking LLM agents on consequential real world tasks. arXiv preprint arXiv:2412.14161.",
  },
  {
    name: "RE-Bench",
    referenceNumber: 30,
    citation:
      "H. Wijk, T. Lin, J. Becker, et al. (2024) RE-Bench: evaluating frontier AI R&D capabilities of language model agents against human experts. arXiv preprint arXiv:2411.15114.",
  },
  {
    name: "Cybench",
    referenceNumber: 35,
    citation:
      "A. K. Zhang, N. Perry, R. Dulepet, et al. (2024) Cybench: a framework for evaluating cybersecurity capabilities and risks of language models. arXiv preprint arXiv:2408.08926.",
  },
  {
    name: "AgentCanary",
    referenceNumber: 20,
    citation:
      "P. Li, S. Wang, Y. Huang, Y. Shi, C. Zhang, Q. Li, Y. Lyu, C. Shan, F. Li, C. Feng, C. Zhu, and L. Chen (2026) AgentCanary: a security evaluation framework for autonomous AI agents in real executable environments. arXiv preprint arXiv:2606.10484.",
  },
];

/** The audit the ledger also cites ([38]). */
export const ABC_REFERENCE = {
  referenceNumber: 38,
  citation:
    "Y. Zhu, T. Jin, Y. Pruksachatkun, et al. (2025) Establishing best practices for building rigorous agentic benchmarks. arXiv preprint arXiv:2507.02825.",
};

/** Table A.1: the codes the paper prints, for the six protocols it prints them for. */
export const TABLE_A1: Record<string, Record<ReviewField, ReviewCode>> = {
  WebArena: { open_work: "NR", reset_or_retention: "E", separate_evidence: "P" },
  WorkArena: { open_work: "NR", reset_or_retention: "E", separate_evidence: "P" },
  OSWorld: { open_work: "NR", reset_or_retention: "E", separate_evidence: "P" },
  "SWE-bench": { open_work: "P", reset_or_retention: "E", separate_evidence: "E" },
  "tau-bench": { open_work: "NA", reset_or_retention: "E", separate_evidence: "E" },
  ToolSandbox: { open_work: "NA", reset_or_retention: "E", separate_evidence: "P" },
};

export interface ReferenceLedgerRow {
  protocol: string;
  field: ReviewField;
  code: ReviewCode;
  sourceLocation: string;
  basis: string;
  citations: number[];
}

/** Table A.2: the cell-level ledger rows the paper prints (WebArena and WorkArena). */
export const TABLE_A2: ReferenceLedgerRow[] = [
  {
    protocol: "WebArena",
    field: "open_work",
    code: "NR",
    sourceLocation: "Paper Sec. 3.2 and App. A.9",
    basis: "Stop actions and state checkers are specified, but handling of background work before scoring is not.",
    citations: [37],
  },
  {
    protocol: "WebArena",
    field: "reset_or_retention",
    code: "E",
    sourceLocation: "Paper App. A.2 and ABC T.4",
    basis: "The self-hosted sites can be restored, and the ABC review reports that site state is cleared between runs.",
    citations: [37, 38],
  },
  {
    protocol: "WebArena",
    field: "separate_evidence",
    code: "P",
    sourceLocation: "Paper App. A.2 and ABC T.4",
    basis: "Site restoration is described, but the reviewed sources do not document whether state outside those sites is reset.",
    citations: [37, 38],
  },
  {
    protocol: "WorkArena",
    field: "open_work",
    code: "NR",
    sourceLocation: "Paper Secs. 4.2 and 5.2",
    basis: "The task lifecycle is specified, but the sources do not give a general rule for descendant or queued work.",
    citations: [10],
  },
  {
    protocol: "WorkArena",
    field: "reset_or_retention",
    code: "E",
    sourceLocation: "Paper Sec. 4.2",
    basis: "Setup and teardown hooks cover resources created for the task.",
    citations: [10],
  },
  {
    protocol: "WorkArena",
    field: "separate_evidence",
    code: "P",
    sourceLocation: "Paper Secs. 4.2 and 5.2",
    basis: "Cleanup is described, but the sources do not report a check that every covered resource was restored.",
    citations: [10],
  },
];

/** Table 3: the paper's totals over all ten protocols, per field and code. */
export const TABLE_3: Record<ReviewField, Record<ReviewCode, number>> = {
  reset_or_retention: { E: 8, P: 2, NR: 0, NA: 0 },
  open_work: { E: 0, P: 2, NR: 6, NA: 2 },
  separate_evidence: { E: 3, P: 7, NR: 0, NA: 0 },
};

/** The date the paper's sources were read (section 5). */
export const PAPER_SOURCES_READ_ON = "2026-08-15";
