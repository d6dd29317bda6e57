// Twelve runs for the runs list's tests (API and browser), sent in the order r1 … r12 (text order would be r1, r10, r11,
// r12, r2, …). They start in reverse order, last 1 to 12 s in a scrambled order, score i/10 (r5 none), fail when odd;
// r12 is unscored. r3 and r7 leave one effect pending at scoring, r9 two. r6 writes a surface r2 reads later: one unit.
// Text to find: "Marguerite" in r4's transcript (once) and r8's (twice), "zeppelin" in r10's tool call arguments, r11's task.
import type { MessageRecord } from "../evaluations/run-record-schema";

export const RUNS_LIST_POLICY = { tools: { "bank.transfer": "async_handle", "search.*": "read_only" } } as const;
const SHARED_SURFACE = "db:orders/shared";
const second = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + s * 1000).toISOString();

/** Seconds from start to scoring of run i (1 … 12): each once. */
export const runsListDuration = (i: number) => ((i * 7) % 12) + 1;
export const runsListStart = (i: number) => second((13 - i) * 20);

function messagesOf(i: number): MessageRecord[] {
  const messages: MessageRecord[] = [{ role: "user", content: `Please handle order ${i}.` }];
  if (i === 4) messages.push({ role: "assistant", content: "The refund was approved by Marguerite this morning." });
  if (i === 8)
    messages.push(
      { role: "assistant", content: "Looking it up.", toolCalls: [{ id: "c1", tool: "search.orders", arguments: { query: "ticket" } }] },
      { role: "tool", content: "Ticket closed by MARGUERITE, refund sent.", toolCallId: "c1" },
      { role: "assistant", content: "Marguerite confirmed the refund." },
    );
  messages.push({ role: "assistant", content: `Order ${i} handled.` });
  return messages;
}

export function runsListExample() {
  return Array.from({ length: 12 }, (_, k) => {
    const i = k + 1;
    const startedAt = runsListStart(i);
    const scored = i === 12 ? { unscoredReason: "the harness crashed" } : { scoredAt: second((13 - i) * 20 + runsListDuration(i)) };
    const pending = i === 3 || i === 7 ? 1 : i === 9 ? 2 : 0;
    return {
      externalId: `r${i}`,
      taskId: i === 11 ? "billing/refund-zz9" : `task-${i % 3}`,
      startedAt,
      ...scored,
      ...(i === 12 ? {} : { endpointLabel: i % 2 === 0 ? "success" : "failure" }),
      ...(i === 5 || i === 12 ? {} : { score: i / 10 }),
      toolCalls: Array.from({ length: i % 4 }, (_, c) => ({
        tool: "search.orders",
        arguments: i === 10 && c === 0 ? { query: "the zeppelin order" } : { query: `order ${i}` },
      })),
      effects: Array.from({ length: pending }, (_, e) => ({
        effectId: `e${e}`,
        tool: "bank.transfer",
        handle: `tx-${i}-${e}`,
        requestedAt: second((13 - i) * 20),
        statusAtScoring: "pending" as const,
      })),
      touches:
        i === 6
          ? [{ surface: SHARED_SURFACE, op: "write" as const, at: second((13 - i) * 20) }]
          : i === 2
            ? [{ surface: SHARED_SURFACE, op: "read" as const, at: second((13 - i) * 20) }]
            : [],
      messages: messagesOf(i),
    };
  });
}
