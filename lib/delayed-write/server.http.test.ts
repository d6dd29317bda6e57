import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DelayedWriteClient } from "./delayed-write-client";
import { operationResponseSchema, type Operation } from "./delayed-write-schemas";
import { spawnDelayedWriteService } from "./spawn";
import { MAX_KEYS_PER_NAMESPACE } from "./delayed-write-store";
import {
  client,
  expectError,
  freshNamespace,
  raw,
  sleep,
  untilServiceTime,
  useDelayedWriteService,
  writeBody,
  writeRaw,
} from "../testing/delayed-write-http";

// Everything here goes over real HTTP to a real service process: fetch for raw requests (status
// codes, headers, malformed bodies) and DelayedWriteClient for typed ones. Bad input: server-bad-input.http.test.ts.

useDelayedWriteService();
// ---------------------------------------------------------------- writes

describe("writes over HTTP", () => {
  it("acknowledges an async write with a delay (202 pending) before applying it", async () => {
    const namespace = freshNamespace("async-delay");
    await client.initialise(namespace, "k", "before");

    const ack = await writeRaw(writeBody(namespace, { value: "after", delayMs: 500 }));
    expect(ack.status).toBe(202);
    expect(ack.operation.status).toBe("pending");
    expect(ack.operation.appliedAtMs).toBeNull();
    expect(ack.operation.ackAtMs).not.toBeNull();

    // read straight after the acknowledgement: the old value, read before the write was due
    const early = await client.read(namespace, "k");
    expect(early.entry?.value).toBe("before");
    expect(early.readAtMs).toBeLessThan(ack.operation.dueAtMs);

    const done = (await client.operation(ack.operation.handle, 10_000)).operation;
    expect(done.status).toBe("completed");
    expect(done.ackAtMs!).toBeLessThan(done.appliedAtMs!);
    expect(done.appliedAtMs!).toBeGreaterThanOrEqual(done.dueAtMs);
    expect(done.measuredDelayMs!).toBeGreaterThanOrEqual(500);
    expect((await client.read(namespace, "k")).entry).toMatchObject({ value: "after", writtenBy: done.handle });
  });

  it("applies an async zero-delay write before answering", async () => {
    const namespace = freshNamespace("async-zero");
    const answer = await writeRaw(writeBody(namespace, { value: "now", delayMs: 0 }));
    expect(answer.status).toBe(200);
    expect(answer.operation.status).toBe("completed");
    expect(answer.operation.appliedAtMs!).toBeLessThanOrEqual(answer.operation.ackAtMs!);
    expect((await client.read(namespace, "k")).entry).toMatchObject({ value: "now", writtenBy: answer.operation.handle });
  });

  it("answers a sync write only after applying it, so it is visible on return", async () => {
    const namespace = freshNamespace("sync");
    const started = performance.now();
    const answer = await writeRaw(writeBody(namespace, { value: "synced", delayMs: 100, mode: "sync" }));
    const elapsed = performance.now() - started;

    expect(answer.status).toBe(200);
    expect(answer.operation.status).toBe("completed");
    expect(answer.operation.measuredDelayMs!).toBeGreaterThanOrEqual(100);
    expect(answer.operation.ackAtMs!).toBeGreaterThanOrEqual(answer.operation.appliedAtMs!);
    // the client itself waited at least the delay: the service did not answer early
    expect(elapsed).toBeGreaterThanOrEqual(100);
    expect((await client.read(namespace, "k")).entry?.value).toBe("synced");
  });

  it("accepts any JSON value except null, and stores it as sent", async () => {
    const namespace = freshNamespace("json");
    const value = { nested: [1, "two", { three: true }], empty: {} };
    await client.write(writeBody(namespace, { value }));
    expect((await client.read(namespace, "k")).entry?.value).toEqual(value);
  });
});

// ---------------------------------------------------------------- cancellation

describe("cancellation over HTTP", () => {
  it("cancels a pending write, which is still cancelled and never applied after its delay", async () => {
    const namespace = freshNamespace("cancel");
    await client.initialise(namespace, "k", "initial");
    const { operation } = await client.write(writeBody(namespace, { value: "must-not-land", delayMs: 200 }));

    const cancelled = await client.cancel(operation.handle);
    expect(cancelled.outcome).toBe("cancelled");
    expect(cancelled.operation.status).toBe("cancelled");

    // re-read well after the write would have landed, judged by the service's clock
    await untilServiceTime(operation.dueAtMs + 150);
    const reread = (await client.operation(operation.handle)).operation;
    expect(reread.status).toBe("cancelled");
    expect(reread.appliedAtMs).toBeNull();
    expect((await client.read(namespace, "k")).entry).toMatchObject({ value: "initial", writtenBy: "initialise", version: 1 });
    expect(await client.operations(namespace, "completed")).toMatchObject({ operations: [] });

    // a second cancel confirms, without changing anything
    expect((await client.cancel(operation.handle)).outcome).toBe("already_cancelled");
  });

  it("answers too_late_completed for a completed write and never reports it cancelled", async () => {
    const namespace = freshNamespace("cancel-late");
    const { operation } = await client.write(writeBody(namespace, { delayMs: 0 }));
    const answer = await client.cancel(operation.handle);
    expect(answer.outcome).toBe("too_late_completed");
    expect(answer.operation.status).toBe("completed");
    expect(answer.operation.cancelledAtMs).toBeNull();
    expect((await client.operation(operation.handle)).operation.status).toBe("completed");
    expect((await client.read(namespace, "k")).entry?.value).toBe("written");
  });
});

// ---------------------------------------------------------------- following operations

describe("following an operation", () => {
  it("long-polls with waitMs until the operation is terminal", async () => {
    const namespace = freshNamespace("poll");
    const { operation } = await client.write(writeBody(namespace, { delayMs: 150 }));
    const answer = await client.operation(operation.handle, 10_000);
    expect(answer.waitTimedOut).toBe(false);
    expect(answer.operation.status).toBe("completed");
    expect(answer.serviceTimeMs).toBeGreaterThanOrEqual(answer.operation.appliedAtMs!);
  });

  it("reports waitTimedOut when the wait runs out first, with the operation still pending", async () => {
    const namespace = freshNamespace("poll-timeout");
    const { operation } = await client.write(writeBody(namespace, { delayMs: 60_000 }));
    const started = performance.now();
    const answer = await client.operation(operation.handle, 100);
    expect(answer.waitTimedOut).toBe(true);
    expect(answer.operation.status).toBe("pending");
    expect(performance.now() - started).toBeGreaterThanOrEqual(99); // it did wait
    await client.cancel(operation.handle);
  });

  it("does not report a timeout when no wait was asked for, even for a pending operation", async () => {
    const namespace = freshNamespace("poll-none");
    const { operation } = await client.write(writeBody(namespace, { delayMs: 60_000 }));
    const answer = await client.operation(operation.handle);
    expect(answer).toMatchObject({ waitTimedOut: false, operation: { status: "pending" } });
    await client.cancel(operation.handle);
  });

  it("lists a namespace's operations, optionally by status", async () => {
    const namespace = freshNamespace("list");
    const completed = (await client.write(writeBody(namespace, { delayMs: 0 }))).operation;
    const pending = (await client.write(writeBody(namespace, { delayMs: 60_000 }))).operation;
    const cancelled = (await client.write(writeBody(namespace, { delayMs: 60_000 }))).operation;
    await client.cancel(cancelled.handle);
    await client.write(writeBody(freshNamespace("list-elsewhere"), { delayMs: 0 }));

    const handles = async (status?: Operation["status"]) => (await client.operations(namespace, status)).operations.map((op) => op.handle);
    expect(await handles()).toEqual([completed.handle, pending.handle, cancelled.handle]);
    expect(await handles("completed")).toEqual([completed.handle]);
    expect(await handles("pending")).toEqual([pending.handle]);
    expect(await handles("cancelled")).toEqual([cancelled.handle]);
    expect(await handles("failed")).toEqual([]);
    await client.cancel(pending.handle);
  });
});

// ---------------------------------------------------------------- values and namespaces

describe("values and namespaces", () => {
  it("initialises a value with PUT and reads it back with GET, bumping the version each time", async () => {
    const namespace = freshNamespace("values");
    expect((await client.read(namespace, "k")).entry).toBeNull();

    const first = await raw("PUT", "/v1/values", { body: { namespace, key: "k", value: 1 } });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ namespace, key: "k", entry: { value: 1, version: 1, writtenBy: "initialise" } });
    await client.initialise(namespace, "k", 2);

    const read = await raw("GET", `/v1/values?${new URLSearchParams({ namespace, key: "k" })}`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ namespace, key: "k", entry: { value: 2, version: 2, writtenBy: "initialise" } });
  });

  it("keeps the same key in two namespaces independent", async () => {
    const a = freshNamespace("iso-a");
    const b = freshNamespace("iso-b");
    await client.write(writeBody(a, { value: "a-value" }));
    expect((await client.read(b, "k")).entry).toBeNull();

    await client.initialise(b, "k", "b-value");
    await client.reset(b, { k: "b-reset" });
    expect((await client.read(a, "k")).entry).toMatchObject({ value: "a-value", version: 1 });
    expect((await client.read(b, "k")).entry).toMatchObject({ value: "b-reset", version: 2 });
    expect((await client.operations(b)).operations).toEqual([]);
  });

  it("resets a namespace and reads back exactly what it holds now, counting pending operations", async () => {
    const namespace = freshNamespace("reset");
    await client.initialise(namespace, "a", "a0");
    await client.initialise(namespace, "b", "b0");
    const pending = (await client.write(writeBody(namespace, { key: "a", delayMs: 60_000 }))).operation;

    const answer = await client.reset(namespace, { a: "a1", c: { nested: true } });
    expect(answer.namespace).toBe(namespace);
    expect(answer.pendingOperations).toBe(1);
    expect(answer.entries.map(({ key, value, version, writtenBy }) => ({ key, value, version, writtenBy }))).toEqual([
      { key: "a", value: "a1", version: 2, writtenBy: "reset" },
      { key: "c", value: { nested: true }, version: 1, writtenBy: "reset" },
    ]);
    expect((await client.read(namespace, "b")).entry).toBeNull();

    // once nothing is pending, the count says so
    await client.cancel(pending.handle);
    const cleared = await client.reset(namespace, {});
    expect(cleared).toMatchObject({ entries: [], pendingOperations: 0 });
    expect((await client.read(namespace, "a")).entry).toBeNull();
  });

  it("lists every key a namespace holds with its value (GET /v1/entries), and nothing of another namespace", async () => {
    const namespace = freshNamespace("entries");
    const other = freshNamespace("entries-other");
    await client.initialise(namespace, "b", { note: "two" });
    await client.write(writeBody(namespace, { key: "a", value: "one" }));
    await client.initialise(other, "z", "elsewhere");

    const answer = await raw("GET", `/v1/entries?${new URLSearchParams({ namespace })}`);
    expect(answer.status).toBe(200);
    expect((answer.json as { entries: Array<{ key: string; value: unknown }> }).entries.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: "a", value: "one" },
      { key: "b", value: { note: "two" } },
    ]);
    expect((await client.entries(freshNamespace("empty"))).entries).toEqual([]);
    expectError(await raw("GET", "/v1/entries"), 400, "invalid_request", "namespace");
  });

  it("a purging reset forgets the namespace's finished operations, so their values can no longer be listed", async () => {
    const namespace = freshNamespace("purge");
    const done = (await client.write(writeBody(namespace, { key: "a", value: "secret" }))).operation;
    const pending = (await client.write(writeBody(namespace, { key: "b", delayMs: 60_000 }))).operation;

    const kept = await client.reset(namespace, {});
    expect(kept.purgedOperations).toBeUndefined();
    expect((await client.operations(namespace)).operations).toHaveLength(2);

    const purged = await raw("POST", "/v1/namespaces/reset", { body: { namespace, values: { a: "fresh" }, operations: "purge" } });
    expect(purged.status).toBe(200);
    expect(purged.json).toMatchObject({ pendingOperations: 1, purgedOperations: 1, entries: [{ key: "a", value: "fresh" }] });
    expect((await client.operations(namespace)).operations.map((op) => op.handle)).toEqual([pending.handle]);
    expectError(await raw("GET", `/v1/operations/${done.handle}`), 404, "unknown_handle", done.handle);
    await client.cancel(pending.handle);
    expectError(
      await raw("POST", "/v1/namespaces/reset", { body: { namespace, operations: "forget" } }),
      400,
      "invalid_request",
      "operations",
    );
  });

  it("fails a write that would exceed the namespace's key capacity, and refuses to initialise one (503)", async () => {
    const namespace = freshNamespace("full");
    const values = Object.fromEntries(Array.from({ length: MAX_KEYS_PER_NAMESPACE }, (_, i) => [`k${i}`, i]));
    expect((await client.reset(namespace, values)).entries).toHaveLength(MAX_KEYS_PER_NAMESPACE);

    const { operation } = await client.write(writeBody(namespace, { key: "one-too-many" }));
    expect(operation.status).toBe("failed");
    expect(operation.failure).toContain(`${MAX_KEYS_PER_NAMESPACE} keys`);
    expect((await client.read(namespace, "one-too-many")).entry).toBeNull();

    expectError(await raw("PUT", "/v1/values", { body: { namespace, key: "one-too-many", value: 1 } }), 503, "at_capacity", namespace);
  });
});

describe("health", () => {
  it.each(["/healthz", "/readyz"])("%s answers 200", async (path) => {
    const answer = await raw("GET", path);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: expect.stringMatching(/^(ok|ready)$/) });
  });

  it("/v1/clock answers the service's time origin and monotonic time", async () => {
    const before = await client.clock();
    const after = await client.clock();
    expect(before.timeOrigin).toBe(after.timeOrigin);
    expect(after.serviceTimeMs).toBeGreaterThanOrEqual(before.serviceTimeMs);
  });
});

// ---------------------------------------------------------------- shutdown

describe("shutdown", () => {
  const exitOf = (child: ChildProcess) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });

  it("exits cleanly (code 0, not killed by the signal) on SIGTERM", async () => {
    const second = await spawnDelayedWriteService();
    try {
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
      const exited = exitOf(second.child);
      second.child.kill("SIGTERM");
      // code 0 with no signal: the service's own handler ran and exited, rather than the default kill
      expect(await exited).toEqual({ code: 0, signal: null });
      await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
    } finally {
      await second.stop();
    }
  });

  it("still answers a request in flight when SIGTERM arrives, then exits", async () => {
    const second = await spawnDelayedWriteService();
    const secondClient = new DelayedWriteClient(second.url, 1);
    try {
      const { operation } = await secondClient.write(writeBody(freshNamespace("shutdown"), { delayMs: 60_000 }));
      const poll = fetch(`${second.url}/v1/operations/${operation.handle}?waitMs=300`);
      await sleep(50); // let the long-poll reach the service
      const exited = exitOf(second.child);
      second.child.kill("SIGTERM");

      const response = await poll;
      expect(response.status).toBe(200);
      expect(operationResponseSchema.parse(await response.json())).toMatchObject({ waitTimedOut: true, operation: { status: "pending" } });
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      await secondClient.close();
      await second.stop();
    }
  });
});
