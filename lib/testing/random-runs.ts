// Runs whose finality exercises every branch of the rule (lib/evaluations/finality.ts), and two policies
// that class their tools differently: the data of the db tests that hold the SQL recompute equal to the
// rule applied in JavaScript (lib/testing/finality-reference.ts).
import { z } from "zod";
import type { Db } from "../db/prisma";
import { RESOLUTION_STATUSES, STATUSES_AT_SCORING } from "../evaluations/vocabulary";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";
import type { RunRecord } from "../evaluations/run-record-schema";
import { appendResolution } from "../evaluations/audit/append-resolution";
import { seededRandom } from "./seeded-random";

export const TOOLS = ["bank.send", "bank.read", "files.write", "mail.send", "deploy.run", "x.unknown"];
export const FIRST: EffectPolicy = {
  tools: { "bank.*": "async_handle", "bank.read": "read_only", "files.write": "sync_confirmed", "mail.send": "external" },
};
export const SECOND: EffectPolicy = {
  tools: { "*.send": "external", "files.*": "async_handle", "deploy.run": "read_only", "x.*": "sync_confirmed" },
};
export const T0 = Date.parse("2026-12-01T00:00:00Z");
export const iso = (ms: number) => new Date(ms).toISOString();

/** `count` runs from `seed`: effects of every status at scoring, with and without handles and record resolutions; a twentieth unscored, a fifth declaring a harness design. */
export function randomRuns(count: number, seed: number): RunRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const start = T0 + i * 10_000;
    const scored = start + 5_000;
    const unscored = random() < 0.05;
    // Requested at one of a few instants, so that ties fall to the effect id.
    const effects = Array.from({ length: Math.floor(random() * 5) }, (_, k) => {
      const requested = start + 1_000 * Math.floor(random() * 3);
      const resolved = random() < 0.4;
      return {
        effectId: pick(["a", "b", "B", "a1", "ä", "z"]) + k,
        tool: pick(TOOLS),
        ...(random() < 0.8 && { handle: `h-${i}-${k}` }),
        requestedAt: iso(requested),
        statusAtScoring: pick(STATUSES_AT_SCORING),
        ...(resolved && {
          resolution: { status: pick(RESOLUTION_STATUSES), at: iso(requested + Math.floor(random() * 9_000)), evidence: "checked" },
        }),
      };
    });
    return {
      externalId: `run-${i}`,
      taskId: `task-${i % 7}`,
      startedAt: iso(start),
      ...(unscored ? { unscoredReason: "crashed" } : { scoredAt: iso(scored), endpointLabel: pick(["success", "failure"] as const) }),
      ...(random() < 0.2 && { harnessDesign: "agentdojo" as const }),
      effects,
    };
  });
}

/** The finality columns stored on each scored run of the evaluation, by run id. */
export const storedFinality = async (db: Db, evaluationId: string) =>
  new Map(
    z
      .array(
        z.object({
          id: z.string(),
          finality: z.string(),
          unresolved_reason: z.string().nullable(),
          unresolved_effect_id: z.string().nullable(),
          unresolved_tool: z.string().nullable(),
          finality_basis: z.string().nullable(),
        }),
      )
      .parse(
        await db.$queryRaw`
          SELECT id::text, finality, unresolved_reason, unresolved_effect_id, unresolved_tool, finality_basis
            FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND scored_at IS NOT NULL`,
      )
      .map(({ id, ...columns }) => [id, columns]),
  );

/** Late resolutions posted one at a time to about `share` of the scored runs with effects (each recomputes its run): after scoring, before it, unknown ones. Returns how many. */
export async function postLateResolutions(
  db: Db,
  evaluationId: string,
  runs: readonly RunRecord[],
  seed: number,
  share = 0.3,
): Promise<number> {
  const random = seededRandom(seed);
  const posted = runs.filter((run) => run.scoredAt && run.effects!.length > 0).filter(() => random() < share);
  for (const run of posted) {
    const effect = run.effects![Math.floor(random() * run.effects!.length)]!;
    const status = RESOLUTION_STATUSES[Math.floor(random() * RESOLUTION_STATUSES.length)]!;
    const at = iso(Date.parse(effect.requestedAt) + Math.floor(random() * 9_000));
    await appendResolution(
      db,
      evaluationId,
      effect.effectId,
      { status, at, evidence: "posted later", runExternalId: run.externalId },
      null,
    );
  }
  return posted.length;
}
