// A task scored by two scorers, the first dict-valued: the real Inspect AI 0.3.260 `ledger` log
// (lib/testing/fixtures/inspect/README.md; 24 samples, scorer `match`) with a scorer `ledger_rubric`
// added before `match`, written where and as Inspect writes a second scorer: each sample's `scores`
// (`{ledger_rubric: {value: {balance, note}}, match}`), a score event per scorer (its `scorer` named),
// `eval.scorers`, the summaries, and `results.scores` with one entry per key of the dict (name the key,
// scorer `ledger_rubric`, Inspect's dict-of-metrics layout) before `match`'s. Every other byte is the
// real log's: the `.eval` keeps its other entries (Zstandard-compressed) as they are stored.
import { INSPECT_LOGS } from "./importer-fixtures";
import { inflatedEntry, storedEntries, zipArchive, type ZipEntry } from "./zip";

export const LEDGER_LOG = `${INSPECT_LOGS}inspect-0.3.260_ledger_sigint_24-samples.eval`;
/** The dict-valued scorer added before `match`. */
export const RUBRIC = "ledger_rubric";

type Json = Record<string, unknown>;

/** The rubric's value for a sample: `balance` follows match (C 1, else 0), `note` is 1 for the samples whose id names a note. */
function rubricValue(sample: Json): { balance: number; note: number } {
  const match = (sample.scores as Record<string, { value: unknown }>).match?.value;
  return { balance: match === "C" ? 1 : 0, note: String(sample.id).includes("slash") || sample.id === "s1" ? 1 : 0 };
}

function withRubric(sample: Json): Json {
  // A sample that raised before scoring has no score of match, and none of the rubric either.
  if (!sample.scores || typeof sample.scores !== "object" || !("match" in sample.scores)) return sample;
  const value = rubricValue(sample);
  const events = Array.isArray(sample.events) ? (sample.events as Json[]) : undefined;
  const matchEvent = events?.findIndex((e) => e.event === "score" && e.scorer === "match") ?? -1;
  const rubricEvent = matchEvent >= 0 ? { ...events![matchEvent], score: { value, explanation: "rubric" }, scorer: RUBRIC } : undefined;
  return {
    ...sample,
    scores: { [RUBRIC]: { value, explanation: "rubric", history: [] }, ...(sample.scores as Json) },
    ...(rubricEvent && { events: [...events!.slice(0, matchEvent), rubricEvent, ...events!.slice(matchEvent)] }),
  };
}

/** The header with the rubric in `eval.scorers` and `results.scores` (its keys' means over the samples, epochs reduced by mean first). */
function headerWithRubric(header: Json, samples: readonly Json[]): Json {
  const scored = samples.filter((s) => s.scores && typeof s.scores === "object" && RUBRIC in (s.scores as Json));
  const bySample = new Map<string, { balance: number; note: number }[]>();
  for (const s of scored) bySample.set(String(s.id), [...(bySample.get(String(s.id)) ?? []), rubricValue(s)]);
  const mean = (key: "balance" | "note") => {
    const perSample = [...bySample.values()].map((values) => values.reduce((sum, v) => sum + v[key], 0) / values.length);
    return perSample.reduce((sum, v) => sum + v, 0) / perSample.length;
  };
  const entry = (key: "balance" | "note") => ({
    name: key,
    scorer: RUBRIC,
    reducer: "mean",
    scored_samples: bySample.size,
    unscored_samples: 0,
    params: {},
    metrics: { mean: { name: "mean", value: mean(key), params: {} } },
  });
  const evalSpec = header.eval as Json;
  const results = header.results as Json;
  return {
    ...header,
    eval: {
      ...evalSpec,
      scorers: [
        { name: RUBRIC, options: {}, metrics: { "*": [{ name: "inspect_ai/mean", options: {} }] }, metadata: {} },
        ...((evalSpec.scorers as Json[]) ?? []),
      ],
    },
    results: { ...results, scores: [entry("balance"), entry("note"), ...((results.scores as Json[]) ?? [])] },
  };
}

/** The two-scorer log as a `.json` document (header fields and samples) and as an `.eval` archive. */
export async function twoScorerLedgerLog(): Promise<{ json: Json & { samples: Json[] }; eval: Buffer }> {
  const entries = await storedEntries(LEDGER_LOG);
  const read = (name: string) => JSON.parse(inflatedEntry(entries.get(name)!).toString("utf8")) as unknown;
  const samples = [...entries.keys()].filter((name) => name.startsWith("samples/")).map((name) => withRubric(read(name) as Json));
  const header = headerWithRubric(read("header.json") as Json, samples);
  const archive: ZipEntry[] = [...entries].map(([name, stored]) => {
    if (name === "header.json") return { name, data: JSON.stringify(header) };
    if (name.startsWith("samples/")) return { name, data: JSON.stringify(withRubric(read(name) as Json)) };
    if (name === "summaries.json") return { name, data: JSON.stringify((read(name) as Json[]).map(withRubric)) };
    return { name, stored };
  });
  return { json: { ...header, samples }, eval: zipArchive(archive) };
}
