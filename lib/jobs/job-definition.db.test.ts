import { Logger, runOnce } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { poolOf, type Db } from "../db/prisma";
import { sqlTransaction } from "../db/sql-transaction";
import { useTestDatabase } from "../testing/use-test-database";
import { defineJob } from "./job-definition";
import { jobOfKey, queuedJobCount, runnableJobCount } from "./queue";

// A job defined once, on a real PostgreSQL and graphile-worker: enqueued through its definition (key
// and attempts from it), handled through it with the payload parsed by its schema, and a payload its
// schema refuses completed with a log line rather than retried.
let db: Db;
let url: string;
useTestDatabase((database) => ({ db, url } = database));

const greetJob = defineJob({
  name: "test_greet",
  payload: z.strictObject({ who: z.string().min(1), times: z.number().int().default(1) }),
  maxAttempts: 4,
  key: (payload, position) => `greet:${payload.who}:${position}`,
});

const runQueue = (handled: unknown[], lines: string[]) =>
  runOnce({
    connectionString: url,
    taskList: {
      [greetJob.name]: greetJob.handler(
        (line) => lines.push(line),
        async (payload, helpers) => void handled.push({ ...payload, attempt: helpers.job.attempts }),
      ),
    },
    logger: new Logger(() => () => {}),
  });

describe("defineJob", () => {
  it("enqueues under the definition's key and attempts, and hands the handler the parsed payload", async () => {
    await sqlTransaction(poolOf(db), async (tx) => {
      await greetJob.enqueueAll(tx, [
        { who: "ada", times: 2 },
        { who: "ada", times: 3 },
      ]);
      await greetJob.enqueue(tx, { who: "bob", times: 1 });
    });
    expect(greetJob.keyOf({ who: "ada", times: 2 }, 1)).toBe("greet:ada:1");
    expect(await runnableJobCount(db, ["greet:ada:0", "greet:ada:1", "greet:bob:0"])).toBe(3);
    expect(await jobOfKey(db, "greet:bob:0")).toEqual({ attempts: 0, maxAttempts: 4, locked: false, lastError: null });
    expect(await jobOfKey(db, "greet:nobody:0")).toBeNull();

    const handled: unknown[] = [];
    const lines: string[] = [];
    await runQueue(handled, lines);
    expect(handled).toEqual(
      expect.arrayContaining([
        { who: "ada", times: 2, attempt: 1 },
        { who: "ada", times: 3, attempt: 1 },
        { who: "bob", times: 1, attempt: 1 },
      ]),
    );
    expect(handled).toHaveLength(3);
    expect(lines).toEqual([]);
    expect(await queuedJobCount(db, "greet:", [greetJob.name])).toBe(0);
  });

  it("completes a job whose payload its schema refuses, saying so, without running the handler or retrying", async () => {
    await sqlTransaction(poolOf(db), (tx) => greetJob.enqueue(tx, { who: "" } as { who: string; times: number }));
    const handled: unknown[] = [];
    const lines: string[] = [];
    await runQueue(handled, lines);
    expect(handled).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^job \d+: invalid test_greet payload, not retried: /);
    expect(await queuedJobCount(db, "greet:", [greetJob.name])).toBe(0);
  });
});
