// Writes a new migration by diffing the committed schema against the edited one.
// `prisma migrate dev` cannot run here (driver-adapter introspection bug, docs/stack.md), so the
// diff is taken between schema files: `npm run db:new-migration -- add_thing`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../lib/db/database";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:new-migration -- <name in snake_case>");
  process.exit(2);
}

let committed: string | null = null;
try {
  committed = execFileSync("git", ["show", "HEAD:prisma/schema.prisma"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
} catch {
  committed = null; // no committed schema yet: diff from empty
}

const from = committed
  ? (() => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-schema-")), "schema.prisma");
      writeFileSync(file, committed);
      return ["--from-schema-datamodel", file];
    })()
  : ["--from-empty"];

// The CLI's driver adapter connects even to diff two files: give it the product's database.
const database = await openDatabase((line) => console.error(line));
let sql: string;
try {
  sql = execFileSync("npx", ["prisma", "migrate", "diff", ...from, "--to-schema-datamodel", "prisma/schema.prisma", "--script"], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: database.url },
  });
} finally {
  await database.close();
}
if (sql.includes("-- This is an empty migration.")) {
  console.error("schema unchanged: no migration written");
  process.exit(1);
}
if (!sql.trim()) {
  console.error("prisma migrate diff printed nothing: no migration written");
  process.exit(1);
}
const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
const dir = path.join("prisma", "migrations", `${stamp}_${name}`);
if (existsSync(dir)) throw new Error(`${dir} already exists`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "migration.sql"), sql);
if (!existsSync("prisma/migrations/migration_lock.toml")) {
  writeFileSync("prisma/migrations/migration_lock.toml", 'provider = "postgresql"\n');
}
console.log(`wrote ${dir}/migration.sql (append hand-written SQL such as CHECK constraints below the diff)`);
