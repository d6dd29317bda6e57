import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { useTestDatabase } from "../../testing/use-test-database";
import { at, WORKED_POLICY, workedExample } from "../../testing/evaluation-example";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "./ingest-runs";
import { evaluationSummary } from "../read/summary";

// A run PostgreSQL refuses although it passed validation costs only itself: the batch is halved
// until that run is alone. The refusal is real: a trigger in this test's own database raises on the
// runs named `poison…`, as PostgreSQL would on a value the schemas did not foresee.
let db: Db;

useTestDatabase((database) => (db = database.db));

const runs = (names: string[]) =>
  names.map((externalId, i) => ({ ...workedExample()[2]!, externalId, startedAt: at(i), scoredAt: at(i + 1), touches: [] }));

async function refuseRunsNamed(prefix: string, sqlstate: string): Promise<void> {
  await db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_named_runs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.external_id LIKE '${prefix}%' THEN RAISE EXCEPTION 'refused %', NEW.external_id USING ERRCODE = '${sqlstate}'; END IF;
      RETURN NEW;
    END $$`);
  await db.$executeRawUnsafe(
    `CREATE OR REPLACE TRIGGER refuse_named_runs BEFORE INSERT OR UPDATE ON evaluation_runs FOR EACH ROW EXECUTE FUNCTION refuse_named_runs()`,
  );
}

describe("a run PostgreSQL refuses", () => {
  it("is refused alone, naming its index; the batch's other runs are stored and audited", async () => {
    await refuseRunsNamed("poison", "22023");
    const id = await createEvaluation(db, { name: "one bad run", effectPolicy: WORKED_POLICY }, null);
    const names = ["a", "b", "poison-1", "c", "d", "e", "poison-2", "f", "g", "h"];
    const results = await ingestRuns(db, id, runs(names), { traces: "caller" });
    expect(results.map((r) => [r.externalId, r.status, r.error?.code, r.error?.field])).toEqual(
      names.map((name, i) =>
        name.startsWith("poison") ? [name, "error", "refused_by_database", `runs.${i}`] : [name, "created", undefined, undefined],
      ),
    );
    expect(results[2]!.error!.message).toMatch(/^runs\.2: PostgreSQL refused this run \(22023: refused poison-1\)/);
    const stored = await db.evaluationRun.findMany({
      where: { evaluationId: id },
      select: { externalId: true },
      orderBy: { externalId: "asc" },
    });
    expect(stored.map((r) => r.externalId)).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
    expect(await evaluationSummary(db, id)).toMatchObject({ runs: 8, reported: { successes: 8, n: 8 } });
    // Sent again, the stored runs are unchanged and the refused ones refused again.
    expect((await ingestRuns(db, id, runs(names), { traces: "caller" })).map((r) => r.status)).toEqual(
      names.map((n) => (n.startsWith("poison") ? "error" : "unchanged")),
    );
  });

  it("fails the whole batch, storing none of it, when the database fails rather than refuses the data", async () => {
    await refuseRunsNamed("flaky", "40001"); // a serialization failure at every attempt: the batch fails whole, for its caller to retry
    const id = await createEvaluation(db, { name: "a failing database" }, null);
    await expect(ingestRuns(db, id, runs(["x", "flaky-1", "y"]), { traces: "caller" })).rejects.toMatchObject({ code: "40001" });
    expect(await db.evaluationRun.count({ where: { evaluationId: id } })).toBe(0);
  });
});
