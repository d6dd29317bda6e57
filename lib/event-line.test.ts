import { describe, expect, it } from "vitest";
import { parseEventLine } from "./event-line";

describe("parseEventLine", () => {
  it("reads an event line with its fields", () => {
    expect(parseEventLine('{"event":"listening","url":"http://127.0.0.1:4100"}')).toEqual({
      event: "listening",
      url: "http://127.0.0.1:4100",
    });
    expect(parseEventLine('{"event":"ready","poolId":"p","healthPort":1}')).toEqual({ event: "ready", poolId: "p", healthPort: 1 });
  });
  it("ignores every other line", () => {
    for (const line of ["initialising embedded PostgreSQL", "{not json", '{"url":"x"}', '{"event":3}', "[1]", ""])
      expect(parseEventLine(line)).toBeNull();
  });
});
