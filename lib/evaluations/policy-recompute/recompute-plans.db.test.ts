import pg from "pg";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { copyEvaluationRows } from "../../bench/copy-evaluation-rows";
import { finalityReference } from "../../testing/finality-reference";
import { cteScansInLoops, planNodeTypes, planOf, planReads, type PlanNode } from "../../testing/query-plans";
import { FIRST, postLateResolutions, randomRuns, SECOND, storedFinality } from "../../testing/random-runs";
import { useTestDatabase } from "../../testing/use-test-database";
import { effectTools, finalityChunkStatement, underFixedPlan } from "../audit/finality-store";
import type { Tx } from "../audit/lock";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "../ingest/ingest-runs";
import { applyPendingPolicy, chunkResultsTaken, chunkStatement, runsToComputeAgain } from "./recompute";
import { setEffectPolicy } from "./set-effect-policy";
import { derivedTouchesChunk } from "./derived-touches";

// The recompute's statements keep one plan whatever the planner's statistics say. A second evaluation
// bulk-loaded after the statistics were taken (they hold the first one's runs alone, as after a fresh
// ingest) once made the planner take a chunk for one run: it read the chunk through whichever index on
// evaluation_id was smallest (every run of the evaluation, then a sort) and met it with its judged effects
// in a nested loop of two CTE scans (minutes a chunk of 50,000). Here every chunk statement walks the
// evaluation's own keys and probes effects and resolutions by key, for the bulk-loaded evaluation and for
// the one whose runs the statistics know, and the recompute's results stay the rule's.
let db: Db;
let url: string;
useTestDatabase((database) => {
  db = database.db;
  url = database.url;
});

/** Tables that grow with the runs: a plan must never scan them whole, nor meet a chunk-sized CTE again for every row. */
const RUN_TABLES = ["evaluation_runs", "evaluation_effects", "evaluation_effect_resolutions"];
const WHOLE_OR_SORTED = ["Seq Scan", "Bitmap Heap Scan", "Sort", "Incremental Sort", "Hash Join", "Merge Join"];

const asPlanned = <T>(tx: Tx, run: () => Promise<T>) => underFixedPlan(tx, run);
const asIs = <T>(_tx: Tx, run: () => Promise<T>) => run();

/** How the plan reads the run tables is one of `alternatives`; it sorts nothing, scans no table whole and joins by key. */
function expectProbedByKey(plan: PlanNode, ...alternatives: string[][]): void {
  const reads = planReads(plan).filter((read) => RUN_TABLES.some((table) => read.startsWith(`${table} by`)));
  expect(alternatives.map((reads) => [...reads].sort())).toContainEqual(reads);
  expect([...planNodeTypes(plan)].filter((type) => WHOLE_OR_SORTED.includes(type))).toEqual([]);
  // A CTE met again for every outer row: the small table of the policy's classes only.
  expect(cteScansInLoops(plan).filter((cte) => cte !== "classes")).toEqual([]);
}

const BY_OWN_KEYS = "evaluation_runs by evaluation_runs_evaluation_id_id_idx";
const EFFECTS_BY_RUN = "evaluation_effects by evaluation_effects_pkey";
const EVIDENCE_BY_EFFECT = "evaluation_effect_resolutions by evaluation_effect_resolutions_run_id_effect_id_idx";

async function withStatisticsOfFirstAlone() {
  // Autovacuum would take statistics of its own while the test runs.
  for (const table of [...RUN_TABLES, "evaluation_recompute_chunks", "evaluation_recomputed_finality"])
    await db.$executeRawUnsafe(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  const first = await createEvaluation(db, { name: "first, in the statistics", effectPolicy: FIRST }, null);
  const runs = randomRuns(3_000, 53);
  expect((await ingestRuns(db, first, runs)).filter((r) => r.status === "error")).toEqual([]);
  await postLateResolutions(db, first, runs.slice(0, 300), 59);
  await db.$executeRawUnsafe("ANALYZE");
  const loaded = await createEvaluation(db, { name: "bulk-loaded after them", effectPolicy: FIRST }, null);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await copyEvaluationRows(client, first, loaded, 1_000);
  } finally {
    await client.end();
  }
  return { first, loaded };
}

describe("the recompute's plans, with statistics of another evaluation alone", () => {
  it("walk each evaluation's own keys and probe by key in every chunk, and give every run the rule's finality", async () => {
    const { first, loaded } = await withStatisticsOfFirstAlone();
    for (const id of [loaded, first]) {
      const { version } = await setEffectPolicy(db, id, SECOND, null);
      const tools = await db.$transaction((tx) => effectTools(tx, id, null));
      const pending = { version, policy: SECOND, after_run_id: "0" };
      expectProbedByKey(await planOf(db, chunkStatement(id, pending, tools, 500), asPlanned), [
        BY_OWN_KEYS,
        EFFECTS_BY_RUN,
        EVIDENCE_BY_EFFECT,
      ]);
      // recomputeFinality's chunks: of every run, and of runs named (by their primary key).
      expectProbedByKey(await planOf(db, finalityChunkStatement(id, SECOND, tools, "0", null), asPlanned), [
        BY_OWN_KEYS,
        EFFECTS_BY_RUN,
        EVIDENCE_BY_EFFECT,
      ]);
      const named = await db.$queryRaw<
        Array<{ id: string }>
      >`SELECT id::text FROM evaluation_runs WHERE evaluation_id = ${id}::uuid LIMIT 20`;
      const namedPlan = await planOf(
        db,
        finalityChunkStatement(
          id,
          SECOND,
          tools,
          "0",
          named.map((r) => r.id),
        ),
        asPlanned,
      );
      expectProbedByKey(
        namedPlan,
        [BY_OWN_KEYS, EFFECTS_BY_RUN, EVIDENCE_BY_EFFECT],
        ["evaluation_runs by evaluation_runs_pkey", EFFECTS_BY_RUN, EVIDENCE_BY_EFFECT],
      );

      // rederiveTouches's chunks (a version that changes the templates): the runs with a templated tool's effect or call.
      expectProbedByKey(await planOf(db, derivedTouchesChunk(id, tools, "0"), asPlanned), [BY_OWN_KEYS, EFFECTS_BY_RUN]);

      let applyPlans: PlanNode[] = [];
      await applyPendingPolicy(db, id, {
        chunkRuns: 500,
        afterStep: async (step) => {
          const row = await db.evaluationPolicyRecompute.findUniqueOrThrow({
            where: { evaluationId_version: { evaluationId: id, version } },
          });
          if (step !== "chunk" || !row.computed) return;
          // Every chunk computed, the apply next: what it reads again, and the chunks' results it takes.
          applyPlans = [
            await planOf(db, runsToComputeAgain(id, version, row.resolutionHighWater.toString()), asPlanned),
            await planOf(db, chunkResultsTaken(id, version, []), asIs),
          ];
        },
      });
      const [again, taken] = applyPlans;
      expectProbedByKey(again!, ["evaluation_effect_resolutions by evaluation_effect_resolutions_pkey", BY_OWN_KEYS]);
      // A write, planned as is (the runs' triggers): the runs probed by their key all the same.
      expect(planReads(taken!).filter((read) => read.startsWith("evaluation_runs by"))).toEqual([
        "evaluation_runs by evaluation_runs_pkey",
      ]);
      expect(await storedFinality(db, id)).toEqual(await finalityReference(db, id, SECOND));
    }
  });
});
