import { expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "../ingest/ingest-runs";
import { useTestDatabase } from "../../testing/use-test-database";
import { POLICY, syntheticRun } from "../../testing/synthetic-evaluation-runs";
import { recordImportedTraces } from "./record-traces";

// In a file of its own: its thousands of traces would change the library the other trace tests count.
let db: Db;

useTestDatabase((database) => (db = database.db));

it("links an evaluation's untraced runs in passes of bounded size until none is left (runs ingested while no worker ran)", async () => {
  const id = await createEvaluation(db, { name: "no worker ran", effectPolicy: { tools: { ...POLICY.tools } } }, null);
  const runs = Array.from({ length: 5_300 }, (_, i) => syntheticRun(i));
  for (let b = 0; b < runs.length; b += 1_000) await ingestRuns(db, id, runs.slice(b, b + 1_000), { traces: "caller" });
  // More untraced runs than one pass takes (5,000): every one linked, over more than one pass.
  expect(await recordImportedTraces(db, id)).toBe(5_300);
  // Every run made calls (two to four): each has its link, and every link its trace.
  const [left] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM evaluation_runs r LEFT JOIN evaluation_run_traces l ON l.run_id = r.id
     WHERE r.evaluation_id = ${id}::uuid AND l.trace_id IS NULL`;
  expect(left!.n).toBe(0n);
  expect(await recordImportedTraces(db, id)).toBe(0);
});
