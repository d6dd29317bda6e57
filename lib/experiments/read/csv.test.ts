import { describe, expect, it } from "vitest";
import { csvChunks, exportResponse, jsonArrayChunks, textStream } from "./csv";
import { parseCsv } from "../../testing/test-support";

const BOM = "\uFEFF";

async function* batches<T>(...lists: T[][]): AsyncGenerator<T[]> {
  for (const list of lists) yield list;
}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = "";
  for await (const chunk of chunks) all += chunk;
  return all;
}

interface Row {
  name: string;
  count: number | null;
  ok: boolean | null;
  detail: unknown;
}
const COLUMNS = ["name", "count", "ok", "detail"] as const;

describe("parseCsv (the tests' own RFC 4180 reader)", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks", () => {
    expect(parseCsv('a,"b,c","say ""hi""","x\r\ny"\r\n,,\r\n')).toEqual([
      ["a", "b,c", 'say "hi"', "x\r\ny"],
      ["", "", ""],
    ]);
  });

  it("refuses what a spreadsheet would misread", () => {
    for (const bad of ["a\nb\r\n", 'a"b\r\n', '"a"b\r\n', '"a\r\n', "a,b"]) expect(() => parseCsv(bad), JSON.stringify(bad)).toThrow();
  });
});

describe("csvChunks", () => {
  it("writes one header, a BOM once, and every batch's rows, RFC 4180-quoted", async () => {
    const rows: Row[][] = [
      [
        { name: "plain", count: 1, ok: true, detail: null },
        { name: 'comma, "quote"', count: -2.5, ok: false, detail: { to: ["a", "b,c"] } },
      ],
      [{ name: "line\nbreak and CRLF\r\nand é", count: null, ok: null, detail: [1, 2] }],
    ];
    const csv = await text(csvChunks(batches(...rows), COLUMNS));
    expect(csv.startsWith(BOM)).toBe(true);
    expect(csv.indexOf(BOM, 1)).toBe(-1);
    expect(parseCsv(csv.slice(1))).toEqual([
      ["name", "count", "ok", "detail"],
      ["plain", "1", "true", ""],
      ['comma, "quote"', "-2.5", "false", '{"to":["a","b,c"]}'],
      ["line\nbreak and CRLF\r\nand é", "", "", "[1,2]"],
    ]);
  });

  it("neutralises text that a spreadsheet would run as a formula, but not negative numbers", async () => {
    const csv = await text(
      csvChunks(
        batches([
          { name: "=HYPERLINK(1)", count: -1, ok: true, detail: "@x" },
          { name: "+1", count: 0, ok: false, detail: "-x" },
        ]),
        COLUMNS,
      ),
    );
    expect(parseCsv(csv.slice(1)).slice(1)).toEqual([
      ["'=HYPERLINK(1)", "-1", "true", "'@x"],
      ["'+1", "0", "false", "'-x"],
    ]);
  });

  it("writes the header alone when nothing matches", async () => {
    expect(await text(csvChunks(batches<Row>(), COLUMNS))).toBe(`${BOM}name,count,ok,detail\r\n`);
    expect(await text(csvChunks(batches<Row>([]), COLUMNS))).toBe(`${BOM}name,count,ok,detail\r\n`);
  });
});

describe("jsonArrayChunks", () => {
  it("writes every batch's rows as one JSON array", async () => {
    const json = await text(jsonArrayChunks(batches([{ a: 1 }, { a: 2 }], [], [{ a: 3 }])));
    expect(JSON.parse(json)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(JSON.parse(await text(jsonArrayChunks(batches())))).toEqual([]);
  });
});

describe("textStream", () => {
  it("pulls a chunk only when the reader wants one, and stops the source when cancelled", async () => {
    let produced = 0;
    let stopped = false;
    async function* source() {
      try {
        for (;;) yield `chunk ${produced++}\n`;
      } finally {
        stopped = true;
      }
    }
    const reader = textStream(source()).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("chunk 0\n");
    // The stream keeps at most one chunk queued ahead of its reader.
    expect(produced).toBeLessThanOrEqual(2);
    await reader.cancel();
    expect(stopped).toBe(true);
  });
});

describe("exportResponse", () => {
  it("sends a named attachment of the right type", async () => {
    const csv = exportResponse({
      format: "csv",
      batches: batches([{ name: "a", count: 1, ok: true, detail: null }]),
      columns: COLUMNS,
      filename: "runs-x",
    });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="runs-x.csv"');
    const bytes = new Uint8Array(await csv.arrayBuffer());
    // The UTF-8 BOM is in the bytes (Response.text() would decode it away).
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)).toBe(`${BOM}name,count,ok,detail\r\na,1,true,\r\n`);
    const json = exportResponse({
      format: "json",
      batches: batches([{ name: "a", count: 1, ok: true, detail: null }]),
      columns: COLUMNS,
      filename: "runs-x",
    });
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="runs-x.json"');
    expect(await json.json()).toEqual([{ name: "a", count: 1, ok: true, detail: null }]);
  });
});
