import { describe, expect, it } from "vitest";
import { LineReader, sniffMessage, type Line } from "./stdio-lines";

const read = (chunks: string[], maxBytes?: number) => {
  const lines: Line[] = [];
  const reader = new LineReader((line) => lines.push(line), maxBytes);
  for (const chunk of chunks) reader.push(Buffer.from(chunk));
  return { lines, left: reader.end() };
};

describe("LineReader", () => {
  it("hands on whole lines as their bytes came, however the chunks cut them, skipping empty ones", () => {
    const { lines, left } = read(['{"a":', '1}\n\n{"b":2}\r\n{"c"', ":3}\n{half"]);
    expect(lines.map((line) => (line.kind === "line" ? line.line.toString() : line))).toEqual(['{"a":1}', '{"b":2}\r', '{"c":3}']);
    expect(left).toBe(5);
  });

  it("drops a line over its limit as it comes, handing on its size and its two ends, and goes on with the next", () => {
    const long = `{"result":{"text":"${"x".repeat(5_000)}"},"jsonrpc":"2.0","id":7}`;
    const { lines } = read([long.slice(0, 100), long.slice(100, 3_000), `${long.slice(3_000)}\n{"ok":1}\n`], 1_000);
    expect(lines[0]).toMatchObject({ kind: "over_limit", bytes: long.length });
    const over = lines[0] as Extract<Line, { kind: "over_limit" }>;
    expect(over.head.startsWith('{"result":{"text":"xxx')).toBe(true);
    expect(over.tail.endsWith('"jsonrpc":"2.0","id":7}')).toBe(true);
    expect(lines[1]).toMatchObject({ kind: "line" });
  });
});

describe("sniffMessage", () => {
  it("reads the top-level id at either end, a request's method and tool, and an isError at the end", () => {
    expect(sniffMessage('{"result":{"content":[{"id":1', ',"isError":true},"jsonrpc":"2.0","id":"a-1"}')).toEqual({
      id: "a-1",
      isError: true,
    });
    expect(sniffMessage('{"jsonrpc":"2.0","id":12,"result":{"content":[', '"x"}]}}')).toEqual({ id: 12, isError: false });
    expect(sniffMessage('{"method":"tools/call","params":{"name":"upload","arguments":{"data":"', '"}},"jsonrpc":"2.0","id":4}')).toEqual({
      id: 4,
      method: "tools/call",
      tool: "upload",
      isError: false,
    });
    // A nested id is not the message's.
    expect(sniffMessage('{"result":{"x":[', '{"id":5}]}}')).toEqual({ isError: false });
  });
});
