import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { inflateRawSync } from "node:zlib";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AGENTDOJO_RUNS, INSPECT_LOGS, importLogFile } from "../testing/importer-fixtures";
import { SkippedLog } from "./imported-log";
import { readLogFile } from "./log-file";
import { MAX_WHOLE_JSON_BYTES } from "./log-file-limits";
import { storedEntries, zipArchive, type ZipEntry } from "../testing/zip";

/** 1.1 GB: what a zip's directory claims, never written. */
const GB_1_1 = Math.round(1.1 * 1024 ** 3);
const dir = mkdtempSync(path.join(tmpdir(), "bl-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
};

describe("a log file's format, told from its content", () => {
  it("whatever the file is called", async () => {
    const agentDojo = path.join(dir, "looks-like.eval");
    copyFileSync(`${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json`, agentDojo);
    const archive = path.join(dir, "archive.json");
    copyFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`, archive);
    const inspectJson = path.join(dir, "no-extension");
    copyFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`, inspectJson);
    expect((await importLogFile(agentDojo)).format).toBe("agentdojo");
    expect((await importLogFile(archive)).format).toBe("inspect-eval");
    expect((await importLogFile(inspectJson)).format).toBe("inspect-json");
  });

  it.each([
    ["an empty file", "", "the file is empty"],
    ["truncated JSON", '{"suite_name": "banking", "messa', "the file is not valid JSON"],
    [
      "binary junk",
      Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x00]),
      "neither JSON nor a zip archive (it starts with bytes 00 ff 13 37 42 00): not a log file",
    ],
    ["JSON of another kind", '{"benchmark_version": "v1.2.1", "suites": {}}', "neither an AgentDojo run log"],
    ["a zip that is damaged", Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]), "not a readable zip archive"],
  ])("%s: skipped with its reason", async (_name, content, reason) => {
    const target = file(`bad-${_name.replace(/\W/g, "-")}`, content);
    await expect(importLogFile(target)).rejects.toThrow(SkippedLog);
    await expect(importLogFile(target)).rejects.toThrow(reason);
  });

  const header = readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`, "utf8");
  const { samples: _samples, ...headerFields } = JSON.parse(header) as { samples: unknown[] };
  const sample = JSON.stringify((JSON.parse(header) as { samples: unknown[] }).samples[0]);

  it("an archive whose entries say they inflate past the cap is refused before any is read (a zip bomb)", async () => {
    const bomb = zipArchive([
      { name: "header.json", data: JSON.stringify(headerFields) },
      { name: "samples/1_epoch_1.json", data: sample, claimedSize: 0xf000_0000 },
    ]);
    await expect(importLogFile(file("bomb.eval", bomb))).rejects.toThrow(
      "entry samples/1_epoch_1.json inflates to 3840 MB, more than the 64 MB one entry may: refused as a possible zip bomb",
    );
    // Many entries under the cap each, over the archive's cap together: the one that passes it is named.
    const many = zipArchive([
      { name: "header.json", data: JSON.stringify(headerFields) },
      ...Array.from({ length: 20 }, (_, k) => ({ name: `samples/${k}_epoch_1.json`, data: sample, claimedSize: 60 * 1024 * 1024 })),
    ]);
    await expect(importLogFile(file("many.eval", many))).rejects.toThrow(
      /^the entries inflate to 1080 MB up to samples\/17_epoch_1.json \(60 MB\), more than the 1024 MB an archive may: refused as a possible zip bomb$/,
    );
  });

  it("a zip of logs whose entry claims 1.1 GB: refused naming the entry, its size and the cap", async () => {
    const huge = zipArchive([
      { name: "logs/a.json", data: "{}" },
      { name: "logs/big.json", data: sample, claimedSize: GB_1_1 },
    ]);
    await expect(readLogFile(file("huge.zip", huge))).rejects.toThrow(
      "entry logs/big.json inflates to 1126 MB, more than the 1024 MB one entry may: refused as a possible zip bomb",
    );
  });

  it("an archive that inflates to more than it says is refused as damaged", async () => {
    const lying = zipArchive([
      { name: "header.json", data: JSON.stringify(headerFields) },
      { name: "samples/1_epoch_1.json", data: sample, claimedSize: 10 },
    ]);
    await expect(importLogFile(file("lying.eval", lying))).rejects.toThrow(/the archive is damaged \(samples\/1_epoch_1.json\)/);
  });

  it("an archive of more entries than an import reads is refused from its directory", async () => {
    const crowded = zipArchive(Array.from({ length: 20_001 }, (_, k) => ({ name: `samples/${k}.json`, data: "" })));
    await expect(importLogFile(file("crowded.eval", crowded))).rejects.toThrow(
      "the archive holds 20001 entries, more than the 20000 an import reads: refused as a possible zip bomb",
    );
  });

  it("a zip with samples but no header.json: skipped as an Inspect log missing its header, naming its samples", async () => {
    const headless = zipArchive([{ name: "samples/1_epoch_1.json", data: sample }]);
    await expect(importLogFile(file("headless.eval", headless))).rejects.toThrow(
      "a zip archive with Inspect sample entries (samples/1_epoch_1.json) but no header.json or _journal/start.json: an Inspect .eval log missing its header",
    );
    // A sample that claims 1.1 GB changes nothing: the header is missing, and nothing is inflated to say so.
    const large = zipArchive([
      { name: "samples/1.json", data: sample, claimedSize: GB_1_1 },
      { name: "summaries.json", data: "[]" },
    ]);
    await expect(importLogFile(file("headless-large.eval", large))).rejects.toThrow(
      "a zip archive with Inspect sample entries (samples/1.json) but no header.json or _journal/start.json: an Inspect .eval log missing its header",
    );
    const several = zipArchive(Array.from({ length: 5 }, (_, k) => ({ name: `samples/${k + 1}_epoch_1.json`, data: sample })));
    await expect(importLogFile(file("headless-several.eval", several))).rejects.toThrow(
      "a zip archive with Inspect sample entries (samples/1_epoch_1.json, samples/2_epoch_1.json, samples/3_epoch_1.json, … 5 in all) but no header.json",
    );
  });

  it("a zip with neither a header nor log files: skipped, saying what it holds", async () => {
    const other = zipArchive([
      { name: "notes.txt", data: "x" },
      { name: "img/plot.png", data: "png" },
    ]);
    await expect(importLogFile(file("other.zip", other))).rejects.toThrow(
      "a zip archive of 2 entries (notes.txt, img/plot.png), none of them a log file (.json, .eval) and no header.json or _journal/start.json: neither an Inspect .eval log nor a zip of logs",
    );
  });

  it("a zip of log files unpacks into its logs, named inside the zip", async () => {
    const agentDojo = readFileSync(`${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json`);
    const bundle = await readLogFile(
      file(
        "logs.zip",
        zipArchive([
          { name: "runs/gpt-x/banking/user_task_0/none/none.json", data: agentDojo },
          { name: "notes.txt", data: "x" },
          { name: "b/log.eval", data: readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`) },
        ]),
      ),
      {},
      "logs.zip",
    );
    if (!("dir" in bundle)) throw new Error("expected a bundle");
    expect(bundle.files.map((f) => f.name)).toEqual(["logs.zip/runs/gpt-x/banking/user_task_0/none/none.json", "logs.zip/b/log.eval"]);
    expect((await importLogFile(bundle.files[0]!.path)).format).toBe("agentdojo");
    expect((await importLogFile(bundle.files[1]!.path)).format).toBe("inspect-eval");
    rmSync(bundle.dir, { recursive: true });
  });

  it("an Inspect .json log larger than a whole read streams, sample by sample, to the same runs", async () => {
    const samples = (JSON.parse(header) as { samples: { id: number }[] }).samples;
    // Padding past the whole-read size, in a field the importer does not read.
    const big = { ...headerFields, plan: { padding: "x".repeat(MAX_WHOLE_JSON_BYTES) }, samples };
    const streamed = await importLogFile(file("big.json", JSON.stringify(big)));
    const whole = await importLogFile(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`);
    expect(streamed.runs).toEqual(whole.runs);
    expect(streamed.runs.length).toBeGreaterThan(0);
  });

  it("a large JSON file cut short: skipped as truncated", async () => {
    const cut = JSON.stringify({ ...headerFields, plan: { padding: "x".repeat(MAX_WHOLE_JSON_BYTES) }, samples: [JSON.parse(sample)] });
    await expect(importLogFile(file("cut.json", cut.slice(0, cut.length - 40)))).rejects.toThrow(
      /the file ends at byte \d+ in the middle of its JSON \(inside an element of samples\): is it truncated\?/,
    );
  });
});

describe("Inspect .eval archives as current Inspect writes them", () => {
  const ZSTANDARD_LOG = `${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`;
  const STREAMING_LOG = `${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`;
  /** A real archive's entries as stored (Zstandard or deflate), some left out or changed. */
  const rebuilt = async (from: string, change: (entries: ZipEntry[]) => ZipEntry[]) =>
    zipArchive(change([...(await storedEntries(from))].map(([name, stored]) => ({ name, stored }))));

  it("Zstandard entries (compression method 93, what current Inspect writes) import as deflate ones do", async () => {
    const stored = await storedEntries(ZSTANDARD_LOG);
    expect(new Set([...stored.values()].map((e) => e.method))).toEqual(new Set([93]));
    const log = await importLogFile(ZSTANDARD_LOG);
    expect(log.format).toBe("inspect-eval");
    expect(log.evaluation.name).toBe("Inspect task · mockllm/test · NHBw2w5NYTbuW8GyUMzpqx");
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]).toMatchObject({ externalId: "NHBw2w5NYTbuW8GyUMzpqx/1/epoch 1", startedAt: "2026-05-06T17:47:39.035Z" });
    expect(log.incomplete).toBeUndefined();
  });

  it("a Zstandard entry that inflates past the size its directory declares is refused as damaged, as a deflate one is", async () => {
    const lying = await rebuilt(ZSTANDARD_LOG, (entries) =>
      entries.map((e) => (e.name === "samples/1_epoch_1.json" ? { ...e, claimedSize: 100 } : e)),
    );
    await expect(importLogFile(file("zstd-lying.eval", lying))).rejects.toThrow(
      "the archive is damaged (samples/1_epoch_1.json): it inflates past the 100 bytes its directory declares",
    );
    const short = await rebuilt(ZSTANDARD_LOG, (entries) =>
      entries.map((e) => (e.name === "samples/1_epoch_1.json" ? { ...e, claimedSize: 20_000 } : e)),
    );
    await expect(importLogFile(file("zstd-short.eval", short))).rejects.toThrow(
      "the archive is damaged (samples/1_epoch_1.json): it inflates to 9615 bytes, not the 20000 its directory declares",
    );
  });

  it("an archive missing a sample its summaries list: imported, and reported incomplete with the count and the sample", async () => {
    const missing = await rebuilt(STREAMING_LOG, (entries) => entries.filter((e) => e.name !== "samples/2_epoch_2.json"));
    const log = await importLogFile(file("missing-sample.eval", missing));
    expect(log.runs).toHaveLength(3);
    expect(log.incomplete).toEqual({ expected: 4, found: 3, missing: ["2 epoch 2"] });
    expect(log.notes).toContain(
      "incomplete: the log says it completed 4 sample(s) but holds 3 (missing: 2 epoch 2): the samples it holds are imported, the missing ones are not runs",
    );
    // Without summaries.json, the header's completed count still tells.
    const noSummaries = await rebuilt(STREAMING_LOG, (entries) =>
      entries.filter((e) => e.name !== "samples/2_epoch_2.json" && !e.name.includes("summaries")),
    );
    expect((await importLogFile(file("missing-no-summaries.eval", noSummaries))).incomplete).toEqual({
      expected: 4,
      found: 3,
      missing: [],
    });
    // Every sample there: complete.
    expect((await importLogFile(STREAMING_LOG)).incomplete).toBeUndefined();
  });

  it("an archive that lists a sample and holds none: skipped, saying so", async () => {
    const empty = await rebuilt(ZSTANDARD_LOG, (entries) => entries.filter((e) => !e.name.startsWith("samples/")));
    await expect(importLogFile(file("zstd-no-samples.eval", empty))).rejects.toThrow(
      "nothing to import: incomplete: the log says it completed 1 sample(s) but holds none (missing: 1 epoch 1)",
    );
  });

  it("a sample whose id holds a `/` is found in its nested entry, beside plain ones", async () => {
    // The real log's sample 2 epoch 1 given the id of METR's inspect-action sample: Inspect writes it to samples/terraform/tmp_epoch_1.json.
    const stored = await storedEntries(STREAMING_LOG);
    const read = (name: string) => JSON.parse(inflateRawSync(stored.get(name)!.compressed).toString("utf8")) as Record<string, unknown>;
    const renamed = { ...read("samples/2_epoch_1.json"), id: "terraform/tmp" };
    const summaries = (read("summaries.json") as unknown as { id: unknown; epoch: number }[]).map((s) =>
      s.id === 2 && s.epoch === 1 ? { ...s, id: "terraform/tmp" } : s,
    );
    const nested = await rebuilt(STREAMING_LOG, (entries) =>
      entries.map((e) =>
        e.name === "samples/2_epoch_1.json"
          ? { name: "samples/terraform/tmp_epoch_1.json", data: JSON.stringify(renamed) }
          : e.name === "summaries.json"
            ? { name: e.name, data: JSON.stringify(summaries) }
            : e,
      ),
    );
    const log = await importLogFile(file("nested.eval", nested));
    expect(log.runs.map((r) => r.taskId).sort()).toEqual(["popularity/1", "popularity/1", "popularity/2", "popularity/terraform/tmp"]);
    expect(log.incomplete).toBeUndefined();
  });
});

describe("a log's text encoding", () => {
  const AGENTDOJO_LOG = `${AGENTDOJO_RUNS}runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json`;
  const utf8 = readFileSync(AGENTDOJO_LOG);
  const text = utf8.toString("utf8");
  const swapped = (bytes: Buffer) => {
    const copy = Buffer.from(bytes);
    copy.swap16();
    return copy;
  };

  it("UTF-8 with a byte-order mark, UTF-16 LE and BE with theirs (a PowerShell redirect): the same run as the UTF-8 log", async () => {
    const plain = await importLogFile(AGENTDOJO_LOG);
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    for (const [name, bytes] of [
      ["bom.json", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])],
      ["utf16le.json", utf16le],
      ["utf16be.json", swapped(utf16le)],
    ] as const) {
      const log = await importLogFile(file(name, bytes));
      expect(log.runs, name).toEqual(plain.runs);
    }
  });

  it("bytes that are not UTF-8: refused at the first one's offset, never replaced", async () => {
    const at = text.indexOf("user_task_0");
    const broken = Buffer.from(utf8);
    broken[at] = 0xff;
    await expect(importLogFile(file("latin.json", broken))).rejects.toThrow(
      `the file is not UTF-8: byte ${at} (0xff) cannot be read as one; save it as UTF-8 (or UTF-16 with a byte-order mark) and import it again`,
    );
    // A U+FFFD the file holds is text, not damage: the bad byte after it is the one named.
    const withReplacement = Buffer.concat([Buffer.from('{"note": "\uFFFD", "x": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    await expect(importLogFile(file("replacement.json", withReplacement))).rejects.toThrow("the file is not UTF-8: byte 22 (0xc3)");
  });

  it("a large file streams with the same check, a character cut between two chunks included", async () => {
    const { samples: _s, ...fields } = JSON.parse(
      readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`, "utf8"),
    ) as Record<string, unknown>;
    // "é" (2 bytes) repeated, so that some land across the 1 MB chunk boundaries: valid, it imports.
    const padded = Buffer.from(JSON.stringify({ ...fields, plan: { padding: "é".repeat(MAX_WHOLE_JSON_BYTES / 2 + 7) }, samples: [] }));
    await expect(importLogFile(file("large-utf8.json", padded))).rejects.toThrow("nothing to import");
    const bad = Buffer.from(padded);
    const offset = bad.length - 100;
    bad[offset] = 0xfe;
    await expect(importLogFile(file("large-bad.json", bad))).rejects.toThrow(
      `the file is not UTF-8: byte ${offset} (0xfe) cannot be read as one`,
    );
  });

  it("UTF-16 that is not (an odd number of bytes, a lone surrogate): refused, saying so", async () => {
    const odd = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le"), Buffer.from([0x20])]);
    await expect(importLogFile(file("odd.json", odd))).rejects.toThrow("the file is not UTF-16LE: it ends inside a character");
  });

  it("a git-lfs pointer (a clone without `git lfs pull`): named as one, with its object", async () => {
    const pointer =
      "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
    await expect(importLogFile(file("pointer.eval", pointer))).rejects.toThrow(
      "a git-lfs pointer (sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393, 12345 bytes), not the log itself: fetch the file with `git lfs pull` and import it again",
    );
  });
});
