import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { isLimitReached, postgresRateLimiter } from "./rate-limiter";

const run = promisify(execFile);
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
});
afterAll(async () => {
  await database?.drop();
});

/** One process consuming from the limiter (lib/testing/consume-rate-limit.ts). */
async function consumeInChild(keyPrefix: string, points: number, attempts: number): Promise<{ allowed: number; refused: number }> {
  const { stdout } = await run(process.execPath, [
    "--import",
    "tsx",
    "lib/testing/consume-rate-limit.ts",
    database.url,
    keyPrefix,
    String(points),
    String(attempts),
  ]);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { allowed: number; refused: number };
}

describe("rate limits in PostgreSQL", () => {
  it("are shared by two processes: together they get the limit once, not twice", async () => {
    const [first, second] = await Promise.all([consumeInChild("two-processes", 10, 15), consumeInChild("two-processes", 10, 15)]);
    expect(first.allowed + second.allowed).toBe(10);
    expect(first.refused + second.refused).toBe(20);
    // A third process, later, finds the budget spent.
    expect(await consumeInChild("two-processes", 10, 3)).toEqual({ allowed: 0, refused: 3 });
    // Another limiter's key prefix has its own budget.
    expect(await consumeInChild("another-limiter", 10, 3)).toEqual({ allowed: 3, refused: 0 });
  });

  it("tell a reached limit from a failing store by the rejection's shape, whichever copy of the class made it", async () => {
    const limiter = postgresRateLimiter(database.url, { keyPrefix: "shape", points: 1, durationSeconds: 60 });
    await limiter.consume("k");
    const reached = await limiter.consume("k").catch((rejection: unknown) => rejection);
    expect(isLimitReached(reached)).toBe(true);
    // What another bundle's copy of RateLimiterRes would make: the same fields, another class.
    class ForeignRateLimiterRes {
      constructor(
        readonly remainingPoints = 0,
        readonly msBeforeNext = 1_000,
      ) {}
    }
    expect(isLimitReached(new ForeignRateLimiterRes())).toBe(true);
    const broken = postgresRateLimiter("postgresql://nobody@127.0.0.1:1/none", { keyPrefix: "shape", points: 1, durationSeconds: 60 });
    expect(isLimitReached(await broken.consume("k").catch((rejection: unknown) => rejection))).toBe(false);
    expect(isLimitReached(Object.assign(new Error("x"), { msBeforeNext: 1, remainingPoints: 0 }))).toBe(false);
  });
});
