// The synthetic runs of bench:ingest: run `i` is the same every time (its own random sequence), with
// realistic shapes: 0, 1 or 2 effects (one on average), 0 to 4 touches (two on average, a tenth on
// surfaces shared across tasks), two to four tool calls.
import type { MessageRecord, RunRecord } from "../evaluations/run-record-schema";
import { seededRandom } from "./seeded-random";

export const POLICY = {
  tools: { "bank.transfer": "async_handle", "email.send": "external", "db.update": "sync_confirmed", "search.*": "read_only" },
} as const;
/** files.write is left out of the policy: its runs are unclassified, as a real policy's gaps would be. */
const EFFECT_TOOLS = ["bank.transfer", "bank.transfer", "email.send", "db.update", "db.update", "files.write"];
const CALL_TOOLS = ["search.orders", "search.users", "bank.read", "db.update"];
const BASE_MS = Date.parse("2026-11-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** Run `i`, the same every time: its own random sequence, so that clients generate their batches independently. */
export function syntheticRun(i: number): RunRecord & { scoredAt: string } {
  const random = seededRandom(i + 1);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const task = `task-${i % 2_000}`;
  const start = BASE_MS + i * 1_500;
  const scored = start + 20_000 + Math.floor(random() * 40_000);
  const surfaceFor = () => (random() < 0.1 ? `db:inventory/${i % 97}` : `db:orders/${task}-${i}`);
  const effectCount = Math.floor(random() * 3); // 0, 1 or 2: one on average
  const touchCount = Math.floor(random() * 5); // 0 to 4: two on average
  const effects = Array.from({ length: effectCount }, (_, k) => {
    const tool = pick(EFFECT_TOOLS);
    const requested = start + 2_000 + k * 5_000 + Math.floor(random() * 3_000);
    const settled = random();
    const endsAt = requested + 500 + Math.floor(random() * 30_000);
    return {
      effectId: `e${k}`,
      tool,
      callId: `call-${k}`,
      tracePosition: 2 + k,
      arguments: { amount: Math.floor(random() * 10_000), currency: "EUR" },
      surface: surfaceFor(),
      handle: random() < 0.95 ? `h-${i}-${k}` : undefined,
      requestedAt: iso(requested),
      acknowledgedAt: iso(requested + 40),
      statusAtScoring: endsAt <= scored ? ("completed" as const) : ("pending" as const),
      ...(settled < 0.75
        ? { resolution: { status: "completed" as const, at: iso(endsAt), evidence: `ledger entry ${i}-${k}`, verifiedBy: "reconciler" } }
        : {}),
    };
  });
  const touches = Array.from({ length: touchCount }, () => ({
    surface: surfaceFor(),
    op: random() < 0.6 ? ("read" as const) : ("write" as const),
    at: iso(start + Math.floor(random() * (scored - start))),
  }));
  const endpointLabel = random() < 0.6 ? ("success" as const) : ("failure" as const);
  return {
    externalId: `run-${i}`,
    taskId: task,
    attempt: i % 3,
    startedAt: iso(start),
    endedAt: iso(scored + 1_000),
    scoredAt: iso(scored),
    endpointLabel,
    ...(random() < 0.3
      ? { terminalLabel: random() < 0.9 ? endpointLabel : endpointLabel === "success" ? ("failure" as const) : ("success" as const) }
      : {}),
    score: Math.round(random() * 100) / 100,
    threshold: 0.5,
    toolCalls: Array.from({ length: 2 + Math.floor(random() * 3) }, (_, k) => ({
      callId: `c${k}`,
      tool: pick(CALL_TOOLS),
      at: iso(start + 1_000 + k * 1_000),
    })),
    effects,
    touches,
  };
}

const FIRST_NAMES = [
  "Ada",
  "Bram",
  "Chiara",
  "Dmitri",
  "Elif",
  "Farid",
  "Greta",
  "Hiro",
  "Ines",
  "Jonas",
  "Kaia",
  "Luca",
  "Maren",
  "Nils",
  "Olga",
  "Pavel",
  "Quinn",
  "Rosa",
  "Sven",
  "Tomas",
];
const LAST_NAMES = [
  "Abara",
  "Brandt",
  "Castell",
  "Dubois",
  "Eklund",
  "Ferraz",
  "Gallo",
  "Haddad",
  "Ivanova",
  "Jansen",
  "Kowalski",
  "Lindqvist",
  "Moreau",
  "Novak",
  "Okafor",
  "Petrov",
  "Quist",
  "Rossi",
  "Sato",
  "Tanaka",
  "Ulloa",
  "Varga",
  "Weber",
  "Yilmaz",
  "Zeller",
];

/** The customer run `i`'s transcript names: one of 500 names, each in one run of 500 or so. */
export function syntheticCustomer(i: number): string {
  const random = seededRandom(i + 7_000_001);
  return `${FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)]} ${LAST_NAMES[Math.floor(random() * LAST_NAMES.length)]}`;
}

/** The ledger reference run `i`'s tool answers with: its own. */
export const syntheticLedgerReference = (i: number) => `LR-${(i * 7_919 + 104_729).toString(36).toUpperCase()}`;

/** Run `i`'s conversation, the same every time: a request naming its customer and task, a search call, its answer, the outcome. */
export function syntheticTranscript(i: number): MessageRecord[] {
  const customer = syntheticCustomer(i);
  return [
    { role: "user", content: `Please reconcile order ${i} for ${customer} (task-${i % 2_000}).` },
    {
      role: "assistant",
      content: `Looking up the open orders of ${customer}.`,
      toolCalls: [{ id: "c0", tool: "search.orders", arguments: { customer, status: "open" } }],
    },
    { role: "tool", content: `Found ${1 + (i % 4)} open orders; ledger reference ${syntheticLedgerReference(i)}.`, toolCallId: "c0" },
    { role: "assistant", content: `Reconciled: a refund of ${(i % 900) + 100} EUR was issued to ${customer}.` },
  ];
}
