import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AGENTDOJO_RUNS, HAND_MADE, INSPECT_LOGS } from "../testing/importer-fixtures";
import { SkippedLog } from "./imported-log";
import { importLogFile } from "./log-file";

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
    ["binary junk", Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x00]), "the file is not valid JSON"],
    ["JSON of another kind", '{"benchmark_version": "v1.2.1", "suites": {}}', "neither an AgentDojo run log"],
    ["a zip that is damaged", Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]), "not a readable zip archive"],
  ])("%s: skipped with its reason", async (_name, content, reason) => {
    const target = file(`bad-${_name.replace(/\W/g, "-")}`, content);
    await expect(importLogFile(target)).rejects.toThrow(SkippedLog);
    await expect(importLogFile(target)).rejects.toThrow(reason);
  });

  it("an archive entry that says it inflates past the cap is refused before it is read (a zip bomb)", async () => {
    const archive = Buffer.from(readFileSync(`${HAND_MADE}inspect/no-header.eval`));
    const central = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    archive.writeUInt32LE(0xf000_0000, central + 24); // the central directory's uncompressed size
    await expect(importLogFile(file("bomb.eval", archive))).rejects.toThrow(/inflates to more than 256 MB .*zip bomb/);
  });
});
