// Two scorers, the first dict-valued (lib/testing/two-scorer-inspect-log.ts: the real Inspect 0.3.260
// `ledger` log with a rubric scorer before `match`), in both containers: the labelling scorer chosen by
// name, the first by default (its dict values said to be no label), every scorer's values and Inspect's
// own metrics kept by the scorer they belong to; a scorer the log lacks refuses the log.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRecordSchema } from "../evaluations/run-record-schema";
import { importLogFile } from "../testing/importer-fixtures";
import { RUBRIC, twoScorerLedgerLog } from "../testing/two-scorer-inspect-log";
import type { ImportedLog } from "./imported-log";
import { UnknownScorer } from "./inspect";
import { scoreAsNumber } from "./inspect-scores";

let dir: string;
const files = { json: "", eval: "" };
let samples: { id: string; epoch: number; scores?: Record<string, { value: unknown }> }[];

beforeAll(async () => {
  const log = await twoScorerLedgerLog();
  dir = mkdtempSync(path.join(tmpdir(), "bl-two-scorers-"));
  files.json = path.join(dir, "ledger.json");
  files.eval = path.join(dir, "ledger.eval");
  writeFileSync(files.json, JSON.stringify(log.json));
  writeFileSync(files.eval, log.eval);
  samples = log.json.samples as typeof samples;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scored = () => samples.filter((s) => s.scores && "match" in s.scores);
const matchSuccesses = () => scored().filter((s) => scoreAsNumber(s.scores!.match!.value) === 1).length;

describe.each(["json", "eval"] as const)("an Inspect .%s log with two scorers, the first dict-valued", (container) => {
  const load = async (options: { scorer?: string } = {}): Promise<ImportedLog> => {
    const log = await importLogFile(files[container], options);
    for (const run of log.runs) runRecordSchema.parse(run);
    return log;
  };

  it("labelled by the scorer named: match's value gives every scored run its label; every scorer's value is kept", async () => {
    const log = await load({ scorer: "match" });
    expect(scored().length).toBeGreaterThan(0);
    const labelled = log.runs.filter((r) => r.endpointLabel !== undefined);
    expect(labelled).toHaveLength(scored().length);
    expect(labelled.filter((r) => r.endpointLabel === "success")).toHaveLength(matchSuccesses());
    for (const run of labelled) {
      expect(Object.keys(run.scorerValues!)).toEqual([RUBRIC, "match"]);
      expect(run.endpointLabel).toBe(scoreAsNumber(run.scorerValues!.match) === 1 ? "success" : "failure");
    }
    expect(log.labellingScorer).toEqual({ source: expect.any(String), scorer: "match" });
    expect(log.unlabelled).toBeUndefined();
    expect(log.notes.some((n) => n.includes("whose scorer match's score is at or above 1"))).toBe(true);
  });

  it("by default the first scorer labels: its dict values are no label, and the import says so, naming the readable scorer", async () => {
    const log = await load();
    const runs = log.runs.filter((r) => r.scorerValues && RUBRIC in r.scorerValues);
    expect(runs).toHaveLength(scored().length);
    for (const run of runs) {
      expect(run.endpointLabel).toBeUndefined();
      expect(run.unscoredReason).toMatch(
        new RegExp(
          `^score \\{"balance":[01],"note":[01]\\} \\(scorer ${RUBRIC}\\) is not a label, number or boolean: .*readable here: match\\)$`,
        ),
      );
      expect(run.threshold).toBe(1); // kept on the unscored run: the summary's rate of match reads it
    }
    expect(log.labellingScorer?.scorer).toBe(RUBRIC);
    expect(log.unlabelled).toEqual({ scorer: RUBRIC, runs: runs.length, readable: ["match"] });
    expect(log.notes).toContain(
      `${runs.length} sample(s) have no label: their labelling scorer ${RUBRIC} (the first scorer, labelling by default) recorded a value that is no label, number or boolean (a dict or list): stored unscored; scorer(s) with readable values: match: import again with --scorer match to label the runs by it`,
    );
  });

  it("Inspect's metrics are kept by the scorer they belong to: a dict's keys under its scorer, match's under match", async () => {
    const log = await load({ scorer: "match" });
    const metrics = log.harnessMetrics!.map(({ scorer, metric }) => `${scorer} ${metric}`);
    expect(metrics).toEqual([`${RUBRIC} balance/mean`, `${RUBRIC} note/mean`, "match accuracy", "match stderr"]);
    expect(log.harnessMetrics!.find((m) => m.scorer === "match" && m.metric === "accuracy")!.value).toBe(0.6); // as Inspect wrote it
  });

  it("a scorer the log does not have refuses the log, naming the field and the scorers it has", async () => {
    const refusal = await load({ scorer: "includes" }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnknownScorer);
    expect((refusal as UnknownScorer).field).toBe("scorer");
    expect((refusal as UnknownScorer).message).toBe(
      `scorer: this log has no scorer named includes (its scorers: ${RUBRIC}, match): nothing of it was imported`,
    );
  });
});

describe("a scorer named by a score event only", () => {
  it("labels a sample that has no `scores` by that scorer's own score event", async () => {
    const { json } = await twoScorerLedgerLog();
    const { importInspectLog } = await import("./inspect");
    const sample = (json.samples as Record<string, unknown>[]).find((s) => s.scores && "match" in (s.scores as object))!;
    const { scores, ...withoutScores } = sample as { scores: Record<string, { value: unknown }> };
    const log = importInspectLog("inspect-json", json, [withoutScores], { scorer: "match" });
    expect(log.runs[0]).toMatchObject({ score: scoreAsNumber(scores.match!.value) });
    const byDefault = importInspectLog("inspect-json", json, [withoutScores]);
    // Without a name, the last score event (match's, after the rubric's) as before.
    expect(byDefault.runs[0]).toMatchObject({ score: scoreAsNumber(scores.match!.value) });
  });
});
