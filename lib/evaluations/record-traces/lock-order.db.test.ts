import { describe, expect, it } from "vitest";
import { poolOf, type Db } from "../../db/prisma";
import { sqlTransaction } from "../../db/sql-transaction";
import { currentPolicy, lockEvaluationAudit } from "../audit/lock";
import { createEvaluation } from "../manage/create-evaluation";
import { writeRuns } from "../ingest/write-runs";
import { validate } from "../ingest/validate";
import { recordImportedTraces, recordImportedTracesInTransaction } from "./record-traces";
import type { EffectPolicy } from "../effect-policy-schema";
import { at } from "../../testing/evaluation-example";
import { useTestDatabase } from "../../testing/use-test-database";

// A record_traces pass, an ingest batch and a writer that links traces inside its own transaction
// (holding the evaluation's row and audit lock, as a policy change does), run side by side many times
// on a real PostgreSQL, take their locks in one order (lib/evaluations/audit/lock.ts): none is ever
// aborted as a deadlock (40P01). The batch re-sends runs with other calls, so that it deletes the very
// links the pass is linking. All are called without the retries that would hide a deadlock (ingestRuns
// retries its transaction; graphile-worker, a failed job).
let db: Db;
useTestDatabase((database) => ({ db } = database));

const POLICY: EffectPolicy = { tools: { send_money: "sync_confirmed", read_balance: "read_only" } };
const ROUNDS = 30;
const RUNS = 1_000;
/** The pass starts this much later each round, up to the time the batch takes to reach the links (the rounds sweep the overlap). */
const STAGGER_MS = 8;

const run = (externalId: string, round: number, variant: number) => ({
  externalId,
  taskId: `bank/${externalId}`,
  startedAt: at(0),
  scoredAt: at(5),
  endpointLabel: "success",
  toolCalls: [
    { tool: "read_balance", arguments: {} },
    { tool: "send_money", arguments: { amount: round, variant } },
  ],
});

/** The batch's valid runs in externalId order, as ingestRuns stores them. */
async function batch(round: number, variant: number) {
  const { valid } = await validate(Array.from({ length: RUNS }, (_, i) => run(`r${String(i).padStart(4, "0")}`, round, variant)));
  return valid.sort((a, b) => (a.run.externalId < b.run.externalId ? -1 : 1));
}

const isDeadlock = (error: unknown) =>
  /40P01|deadlock detected/.test(`${String((error as { code?: unknown })?.code)} ${String(error)} ${JSON.stringify(error)}`);

describe("record_traces passes beside audit writers", () => {
  it("never deadlock with an ingest batch re-sending the runs being linked, nor with a writer linking in its transaction", async () => {
    const id = await createEvaluation(db, { name: "lock order", effectPolicy: POLICY }, null);
    const failures: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Untraced links for the pass to take, then the same runs re-sent with other calls beside it.
      await writeRuns(db, id, await batch(round, 0), "job");
      const resent = await batch(round, 1);
      const delay = (round % 10) * STAGGER_MS;
      const later = () => new Promise((resolve) => setTimeout(resolve, delay));
      const outcomes = await Promise.allSettled([
        writeRuns(db, id, resent, "job"),
        later().then(() => recordImportedTraces(db, id)),
        sqlTransaction(poolOf(db), async (tx) => {
          await currentPolicy(tx, id, "update");
          await lockEvaluationAudit(tx, id);
          await recordImportedTracesInTransaction(tx, id);
        }),
      ]);
      for (const outcome of outcomes) if (outcome.status === "rejected") failures.push(outcome.reason);
    }
    expect(failures.filter(isDeadlock).map(String)).toEqual([]);
    expect(failures.map(String)).toEqual([]);
    // What the last re-send left untraced, a pass links.
    await recordImportedTraces(db, id);
    const untraced = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM evaluation_run_traces WHERE evaluation_id = ${id}::uuid AND trace_id IS NULL`;
    expect(Number(untraced[0]!.n)).toBe(0);
  });
});
