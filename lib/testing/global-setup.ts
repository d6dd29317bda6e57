import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import "vitest";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../db/embedded";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the embedded PostgreSQL started for this test run. */
    embeddedAdminUrl: string;
    /** Admin URL of the PostgreSQL server at DATABASE_URL, when it is set. */
    serverAdminUrl: string | null;
  }
}

let embedded: EmbeddedDatabase | undefined;
let dataDir: string | undefined;

/** Starts one embedded PostgreSQL for the whole run; each test file creates and drops its own databases in it. */
export async function setup(project: TestProject): Promise<void> {
  dataDir = mkdtempSync(path.join(tmpdir(), "bl-test-pg-"));
  embedded = await startEmbeddedPostgres(dataDir);
  project.provide("embeddedAdminUrl", embedded.url);
  project.provide("serverAdminUrl", process.env.DATABASE_URL ?? null);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dataDir) {
    rmSync(dataDir, { recursive: true, force: true });
    // The embedded cluster's generated password sits beside its folder (lib/db/embedded.ts).
    rmSync(`${dataDir}.password`, { force: true });
  }
}
