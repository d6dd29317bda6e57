// The project's import graph, read with TypeScript's own parser, and the dependency rules the
// README states, as functions over it (lib/architecture.test.ts applies them to the tree).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface ImportEdge {
  specifier: string;
  /** The project file it resolves to (relative to the root, with forward slashes), or null for a package. */
  target: string | null;
  /** `import type …`: erased at compile time, never loaded. */
  typeOnly: boolean;
}

export interface SourceFile {
  imports: ImportEdge[];
  /** Starts with the "use client" directive: a module of the browser's bundle. */
  client: boolean;
}

export type ImportGraph = Map<string, SourceFile>;

const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

/** A relative or `@/` specifier as a project file; null for packages (and for a file that does not exist). */
export function resolveSpecifier(from: string, specifier: string, exists: (file: string) => boolean): string | null {
  const base = specifier.startsWith("@/")
    ? specifier.slice(2)
    : specifier.startsWith(".")
      ? path.posix.join(path.posix.dirname(from), specifier)
      : null;
  if (base === null) return null;
  for (const extension of EXTENSIONS) if (exists(`${base}${extension}`)) return `${base}${extension}`;
  return null;
}

/** Every import, re-export and dynamic import() of one file, with whether it is type-only. */
export function readImports(file: string, text: string): { specifiers: Array<{ specifier: string; typeOnly: boolean }>; client: boolean } {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    false,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const specifiers: Array<{ specifier: string; typeOnly: boolean }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      specifiers.push({ specifier: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const first = source.statements[0];
  const client =
    first !== undefined &&
    ts.isExpressionStatement(first) &&
    ts.isStringLiteral(first.expression) &&
    first.expression.text === "use client";
  return { specifiers, client };
}

/** The graph of every .ts/.tsx file under `folders` (and the named top-level files) of the project at `root`. */
export function readProjectGraph(root: string, folders: readonly string[], files: readonly string[] = []): ImportGraph {
  const found: string[] = [...files.filter((f) => existsSync(path.join(root, f)))];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = `${dir}/${name}`;
      if (name === "node_modules" || name === "generated" || name.startsWith(".")) continue;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) found.push(rel);
    }
  };
  for (const folder of folders) if (existsSync(path.join(root, folder))) walk(folder);
  const exists = (file: string) => existsSync(path.join(root, file)) && statSync(path.join(root, file)).isFile();
  const graph: ImportGraph = new Map();
  for (const file of found) {
    const { specifiers, client } = readImports(file, readFileSync(path.join(root, file), "utf8"));
    graph.set(file, {
      client,
      imports: specifiers.map(({ specifier, typeOnly }) => ({ specifier, typeOnly, target: resolveSpecifier(file, specifier, exists) })),
    });
  }
  return graph;
}

/** The files `start` loads at run time, itself included (type-only imports are not followed). */
export function runtimeReach(graph: ImportGraph, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of graph.get(file)?.imports ?? []) if (!edge.typeOnly && edge.target) stack.push(edge.target);
  }
  return seen;
}

/** The path of runtime imports from `start` to the first file `bad` accepts, e.g. ["a.ts", "b.ts"], or null. */
export function pathTo(graph: ImportGraph, start: string, bad: (file: string) => boolean): string[] | null {
  const from = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    if (bad(file)) {
      const chain = [file];
      for (let at = from.get(file); at; at = from.get(at)) chain.unshift(at);
      return chain;
    }
    for (const edge of graph.get(file)?.imports ?? []) {
      if (edge.typeOnly || !edge.target || from.has(edge.target)) continue;
      from.set(edge.target, file);
      queue.push(edge.target);
    }
  }
  return null;
}

const isPackage = (specifier: string, prefixes: readonly string[]) =>
  prefixes.some((p) => specifier === p || specifier.startsWith(`${p}/`) || (p.endsWith(":") && specifier.startsWith(p)));

/** Whether the file itself loads (at run time) a package under one of `prefixes` ("pg", "@prisma", "node:"). */
export function loadsPackage(graph: ImportGraph, file: string, prefixes: readonly string[]): string | null {
  return (
    graph.get(file)?.imports.find((edge) => !edge.typeOnly && edge.target === null && isPackage(edge.specifier, prefixes))?.specifier ??
    null
  );
}

export const declaresServerOnly = (graph: ImportGraph, file: string) =>
  graph.get(file)?.imports.some((edge) => edge.specifier === "server-only") ?? false;

export interface DependencyRules {
  /** The paper's rules: pure functions. */
  pureModules: readonly string[];
  /** Packages a pure module may not reach (database, HTTP, framework). */
  impurePackages: readonly string[];
  /** Project files a pure module may not reach. */
  impureFiles: (file: string) => boolean;
  /** Imports that make a lib module a web-server module, which must say `import "server-only"`. */
  serverOnlyMarkers: (edge: ImportEdge) => boolean;
  /** Packages the browser's bundle must never reach. */
  serverPackages: readonly string[];
  /** Process entry points run by Node directly (they cannot load a server-only module). */
  entryPoints: (file: string) => boolean;
  /** Test helpers, which production code may not import. */
  testHelpers: (file: string) => boolean;
  production: (file: string) => boolean;
}

/** Every broken rule, each as one line naming the files (and the import chain) involved. */
export function dependencyViolations(graph: ImportGraph, rules: DependencyRules): string[] {
  const found: string[] = [];
  const chain = (files: string[]) => files.join(" → ");
  for (const pure of rules.pureModules) {
    if (!graph.has(pure)) {
      found.push(`pure module ${pure} does not exist (update the list)`);
      continue;
    }
    const viaFile = pathTo(graph, pure, rules.impureFiles);
    if (viaFile) found.push(`pure module reaches impure code: ${chain(viaFile)}`);
    const viaPackage = pathTo(graph, pure, (file) => loadsPackage(graph, file, rules.impurePackages) !== null);
    if (viaPackage)
      found.push(
        `pure module reaches a database, HTTP or framework package: ${chain(viaPackage)} imports ${loadsPackage(graph, viaPackage.at(-1)!, rules.impurePackages)}`,
      );
  }
  for (const [file, source] of graph) {
    if (file.startsWith("lib/")) {
      for (const edge of source.imports) {
        if (edge.target && /^(app|workers|components)\//.test(edge.target))
          found.push(`lib imports from ${edge.target.split("/")[0]}/: ${file} → ${edge.target}`);
      }
      if (source.imports.some(rules.serverOnlyMarkers) && !declaresServerOnly(graph, file))
        found.push(`web-server module without import "server-only": ${file}`);
    }
    if (source.client) {
      const leak = pathTo(graph, file, (f) => declaresServerOnly(graph, f) || loadsPackage(graph, f, rules.serverPackages) !== null);
      if (leak) found.push(`client component reaches server code: ${chain(leak)}`);
    }
    if (rules.entryPoints(file)) {
      const serverOnly = pathTo(graph, file, (f) => declaresServerOnly(graph, f));
      if (serverOnly) found.push(`process entry point loads a server-only module (it would throw): ${chain(serverOnly)}`);
    }
    if (rules.production(file)) {
      for (const edge of source.imports)
        if (edge.target && rules.testHelpers(edge.target)) found.push(`production code imports a test helper: ${file} → ${edge.target}`);
    }
  }
  return found;
}

/** The layer `file` belongs to: the longest listed folder holding it, or "lib" for a file directly in lib/; null if none is listed. */
export function layerOf(file: string, layers: readonly string[]): string | null {
  let found: string | null = null;
  for (const layer of layers)
    if (layer !== "lib" && file.startsWith(`${layer}/`) && (found === null || layer.length > found.length)) found = layer;
  if (found !== null) return found;
  return path.posix.dirname(file) === "lib" && layers.includes("lib") ? "lib" : null;
}

/**
 * Imports against lib/'s folder order: `layers` runs from the top down, and a production file may
 * import its own layer and the layers listed after it, never one listed before (so no folder can be
 * part of a cycle). Type-only imports count: a reader follows them as well.
 */
export function layerViolations(
  graph: ImportGraph,
  layers: readonly string[],
  production: (file: string) => boolean,
  folderExists: (folder: string) => boolean,
): string[] {
  const found: string[] = layers
    .filter((layer) => !folderExists(layer))
    .map((layer) => `folder ${layer} in the order does not exist (update the list)`);
  const rank = (layer: string) => layers.indexOf(layer);
  for (const [file, source] of graph) {
    if (!file.startsWith("lib/") || !production(file)) continue;
    const from = layerOf(file, layers);
    if (from === null) {
      found.push(`folder not in the order: ${file}`);
      continue;
    }
    for (const edge of source.imports) {
      const to = edge.target?.startsWith("lib/") ? layerOf(edge.target, layers) : null;
      if (to !== null && rank(to) < rank(from)) found.push(`import against the folder order: ${file} (${from}) → ${edge.target} (${to})`);
    }
  }
  return found;
}

/**
 * The folders of lib/ whose production files import one another round in a circle, each circle as "a → b → a": the
 * structure a reader draws from the imports, one room per folder (subfolders included), must have none.
 */
export function folderCycles(graph: ImportGraph, production: (file: string) => boolean): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [file, source] of graph) {
    if (!file.startsWith("lib/") || !production(file)) continue;
    const from = path.posix.dirname(file);
    for (const edge of source.imports) {
      if (!edge.target?.startsWith("lib/") || !production(edge.target)) continue;
      const to = path.posix.dirname(edge.target);
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  // Depth first from each folder in turn: a folder met again on the current path closes a circle.
  const found = new Set<string>();
  const done = new Set<string>();
  const walk = (folder: string, trail: string[]) => {
    const at = trail.indexOf(folder);
    if (at >= 0) {
      const circle = trail.slice(at);
      const first = circle.indexOf([...circle].sort()[0]!);
      found.add([...circle.slice(first), ...circle.slice(0, first), circle[first]].join(" → "));
      return;
    }
    if (done.has(folder)) return;
    for (const next of [...(edges.get(folder) ?? [])].sort()) walk(next, [...trail, folder]);
    done.add(folder);
  };
  for (const folder of [...edges.keys()].sort()) walk(folder, []);
  return [...found];
}
