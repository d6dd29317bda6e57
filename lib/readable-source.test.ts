import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// A reader of the repository has the code, docs/ and the paper, not the tracker or the source texts
// the work started from: code and the text users see cite docs/<page>.md or the paper's section. And
// no source file is longer than a reader holds in mind at once (docs/architecture.md).

const ROOT = join(__dirname, "..");
const SOURCE_FOLDERS = ["lib", "app", "components", "workers", "scripts", "e2e"];
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs|css)$/;
/** Generated code and third-party fixtures are not ours to word. */
const NOT_OURS = ["lib/generated", "lib/testing/fixtures"];

const CITATIONS: ReadonlyArray<readonly [string, RegExp]> = [
  ["an issue number", /\bissues? *#? *\d+/i],
  ["an issue number", /\(#\d+\)/],
  ["a seed file", /\bseeds?\/? *0\d\d\b/i],
  ["a seed file", /\b\d{3}_[0-9a-f]{12,}\b/],
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (NOT_OURS.some((skipped) => path === skipped || path.startsWith(`${skipped}/`))) return [];
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

/** Every line of `text` that cites an issue or a seed file, as "path:line: what (the line)". */
function citationsIn(path: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, index) =>
      CITATIONS.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${path}:${index + 1}: ${what} (${line.trim()})`),
    );
}

describe("citations", () => {
  it("finds an issue number and a seed file in any of their spellings", () => {
    const cited = [
      "// (see iss" + "ue 12)",
      "// Iss" + "ues #3 and 4",
      "/** fixed in (#" + "40) */",
      "// seeds/0" + "02",
      "// seed 0" + "03's table",
    ];
    cited.push("// 00" + "1_cd1f5be484eaba54.txt");
    expect(cited.map((line) => citationsIn("x.ts", line).length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(citationsIn("x.ts", "// docs/evaluations.md, Rule 2; the paper, §4.1\nconst path = `/runs/seed/resets`;")).toEqual([]);
  });

  it("no file under lib/, app/, components/, workers/, scripts/ or e2e/ cites an issue or a seed file", () => {
    const files = SOURCE_FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((path) => citationsIn(relative(ROOT, join(ROOT, path)), readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });
});

/** The longest a source file under lib/, app/, components/, workers/ or scripts/ may be, in lines. */
const MAX_LINES = 400;

describe("file length", () => {
  it(`no file under lib/, app/, components/, workers/ or scripts/ is over ${MAX_LINES} lines`, () => {
    const files = ["lib", "app", "components", "workers", "scripts"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
