import { describe, expect, it } from "vitest";
import { parseReplayArgs, UsageError } from "./replay-cli-args";

describe("parseReplayArgs", () => {
  it("defaults to the paper grid", () => {
    const { config, jsonFile } = parseReplayArgs([]);
    expect(config.delaysMs).toEqual([0, 25, 100, 250]);
    expect(config.schedules).toBe(5);
    expect(config.repetitions).toBe(10);
    expect(jsonFile).toBeNull();
  });
  it("reads every flag", () => {
    const { config, jsonFile } = parseReplayArgs([
      "--json",
      "out.json",
      "--delays",
      "0,50",
      "--schedules",
      "2",
      "--repetitions",
      "3",
      "--concurrency",
      "8",
      "--environment-failure-retries",
      "2",
      "--harness-late-retries",
      "5",
    ]);
    expect(config).toMatchObject({
      delaysMs: [0, 50],
      schedules: 2,
      repetitions: 3,
      concurrency: 8,
      environmentFailureRetries: 2,
      harnessLateRetries: 5,
    });
    expect(jsonFile).toBe("out.json");
  });
  it.each([
    [["--delays", "0,abc"], /--delays: "abc" is not an integer/],
    [["--delays", "0,0"], /--delays: delays must not repeat/],
    [["--delays", "-5"], /--delays/],
    [["--schedules", "0"], /--schedules/],
    [["--repetitions", "1.5"], /--repetitions: "1.5" is not an integer/],
    [["--concurrency", "100000"], /--concurrency/],
    [["--harness-late-retries", "11"], /--harness-late-retries/],
    [["--bogus"], /bogus/],
    [["--json"], /json/],
  ])("rejects %j with a message naming the flag", (argv, message) => {
    expect(() => parseReplayArgs(argv)).toThrow(UsageError);
    expect(() => parseReplayArgs(argv)).toThrow(message);
  });
});
