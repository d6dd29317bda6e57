// The worked example of docs/evaluations.md, for the evaluation tests: three runs of one task on one
// surface, 2026-12-01 from 10:00:00 UTC. r1 requests a transfer pending at scoring (its evidence
// comes later); r2 reads the surface and requests a transfer completed before it is scored, and its
// terminal label disagrees with its endpoint label; r3 reads the surface.
export const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, second)).toISOString();
export const SURFACE = "service:banking.balance";
export const WORKED_POLICY = { tools: { "bank.transfer": "async_handle", "bank.read": "read_only" } } as const;

export const workedExample = () => [
  {
    externalId: "r1",
    taskId: "t1",
    startedAt: at(0),
    scoredAt: at(5),
    endpointLabel: "success",
    effects: [{ effectId: "e1", tool: "bank.transfer", handle: "tx-1", surface: SURFACE, requestedAt: at(1), statusAtScoring: "pending" }],
  },
  {
    externalId: "r2",
    taskId: "t1",
    startedAt: at(10),
    scoredAt: at(15),
    endpointLabel: "success",
    terminalLabel: "failure",
    touches: [{ surface: SURFACE, op: "read", at: at(11) }],
    effects: [
      {
        effectId: "e2",
        tool: "bank.transfer",
        handle: "tx-2",
        surface: SURFACE,
        requestedAt: at(12),
        statusAtScoring: "pending",
        resolution: { status: "completed", at: at(13), evidence: { ledger: 8813 } },
      },
    ],
  },
  {
    externalId: "r3",
    taskId: "t1",
    startedAt: at(20),
    scoredAt: at(25),
    endpointLabel: "success",
    touches: [{ surface: SURFACE, op: "read", at: at(21) }],
  },
];
