// Builds the MCP recorder's entry point (workers/mcp-record.ts and everything it imports) into one
// file, dist/mcp-record.mjs, with esbuild: started with plain `node`, it answers an agent's first
// message in a fraction of a second, where `tsx` compiling the sources on each start took seconds.
// `node scripts/build-recorder.mjs [--if-stale]`: with --if-stale, builds only when the file is missing
// or one of the inputs of its last build changed since (scripts/setup.sh calls it so).
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = path.join(root, "dist/mcp-record.mjs");
const inputsFile = path.join(root, "dist/mcp-record.inputs.json");

function isStale() {
  if (!existsSync(outfile) || !existsSync(inputsFile)) return true;
  const builtAt = statSync(outfile).mtimeMs;
  const inputs = JSON.parse(readFileSync(inputsFile, "utf8"));
  return [...inputs, "scripts/build-recorder.mjs", "package-lock.json"].some((input) => {
    const file = path.join(root, input);
    return !existsSync(file) || statSync(file).mtimeMs > builtAt;
  });
}

if (process.argv.includes("--if-stale") && !isStale()) process.exit(0);
const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: ["workers/mcp-record.ts"],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  metafile: true,
  logLevel: "warning",
  legalComments: "none",
  banner: {
    // A bin run directly; and CommonJS dependencies bundled into an ES module still find `require`.
    js: [
      "#!/usr/bin/env node",
      'import { createRequire as createRequireOfBundle } from "node:module";',
      "const require = createRequireOfBundle(import.meta.url);",
    ].join("\n"),
  },
});
writeFileSync(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs).sort(), null, 1));
chmodSync(outfile, 0o755);
console.error(`build-recorder: dist/mcp-record.mjs built in ${Date.now() - started} ms`);
