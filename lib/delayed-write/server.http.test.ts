import { randomUUID } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DelayedWriteClient, ServiceFailure } from "./client";
import {
  MAX_BODY_BYTES,
  MAX_DELAY_MS,
  MAX_WAIT_MS,
  errorResponseSchema,
  operationResponseSchema,
  writeResponseSchema,
  type Operation,
  type WriteRequest,
} from "./schemas";
import { spawnDelayedWriteService, type ServiceProcess } from "./spawn";
import { MAX_KEYS_PER_NAMESPACE } from "./store";

// Everything here goes over real HTTP to a real service process: fetch for raw requests (status
// codes, headers, malformed bodies) and DelayedWriteClient for typed ones.

let service: ServiceProcess;
let client: DelayedWriteClient;

beforeAll(async () => {
  service = await spawnDelayedWriteService();
  client = new DelayedWriteClient(service.url);
});

afterAll(async () => {
  await client?.close();
  await service?.stop();
});

// ---------------------------------------------------------------- helpers

/** Every test gets its own namespace, so no test can see another's writes. */
const freshNamespace = (label: string) => `t-${label}-${randomUUID()}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function writeBody(namespace: string, overrides: Partial<WriteRequest> = {}): WriteRequest {
  return { namespace, key: "k", value: "written", delayMs: 0, mode: "async", ...overrides };
}

interface RawOptions {
  /** An object is sent as JSON; a string is sent verbatim. */
  body?: unknown;
  contentType?: string | null;
}

/** One raw HTTP request; answers the status and the parsed JSON body. */
async function raw(method: string, path: string, options: RawOptions = {}): Promise<{ status: number; json: unknown }> {
  const { body, contentType = "application/json" } = options;
  const headers: Record<string, string> = contentType === null || body === undefined ? {} : { "content-type": contentType };
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** Asserts the error contract: the status, {error:{code,message,field?}}, and that message or field names `names`. */
function expectError(answer: { status: number; json: unknown }, status: number, code: string, names: string) {
  expect(answer.status).toBe(status);
  const parsed = errorResponseSchema.safeParse(answer.json);
  expect(parsed.success, `error body ${JSON.stringify(answer.json)}`).toBe(true);
  const error = parsed.data!.error;
  expect(error.code).toBe(code);
  expect(`${error.field ?? ""} ${error.message}`).toContain(names);
}

/** What a namespace holds: its operations (with status) and the value of one key. */
async function snapshot(namespace: string, key = "k") {
  const [{ operations }, { entry }] = await Promise.all([client.operations(namespace), client.read(namespace, key)]);
  return { operations: operations.map((op) => ({ handle: op.handle, status: op.status })), entry };
}

/** Serves bad-input tests: a namespace that holds one initialised value and one pending operation. */
async function populatedNamespace(label: string) {
  const namespace = freshNamespace(label);
  await client.initialise(namespace, "k", "initial");
  const pending = (await client.write(writeBody(namespace, { key: "other", delayMs: 60_000 }))).operation;
  return { namespace, pending, before: await snapshot(namespace) };
}

async function expectUnchanged(namespace: string, before: Awaited<ReturnType<typeof snapshot>>) {
  expect(await snapshot(namespace)).toEqual(before);
}

/** Waits until the service's own clock has passed `atMs`, so "after the delay" is judged by the service. */
async function untilServiceTime(atMs: number): Promise<void> {
  for (;;) {
    const { serviceTimeMs } = await client.clock();
    if (serviceTimeMs >= atMs) return;
    await sleep(Math.max(1, atMs - serviceTimeMs));
  }
}

async function writeRaw(body: unknown) {
  const answer = await raw("POST", "/v1/writes", { body });
  return { status: answer.status, operation: writeResponseSchema.parse(answer.json).operation };
}

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

// ---------------------------------------------------------------- bad input

describe("bad input is refused with a 4xx that names the problem, and changes nothing", () => {
  type Case = {
    name: string;
    request: (namespace: string) => { method: string; path: string } & RawOptions;
    status: number;
    code: string;
    /** What the message or field must mention. */
    names: string;
  };

  /** A write that would be applied at once (delay 0) if the service wrongly accepted it. */
  const write = (mutate: (body: Record<string, unknown>) => unknown) => (namespace: string) => ({
    method: "POST",
    path: "/v1/writes",
    body: mutate({ ...writeBody(namespace, { value: "bad-input-landed" }) }),
  });
  const without = (field: string) => (body: Record<string, unknown>) => {
    const { [field]: _omitted, ...rest } = body;
    return rest;
  };

  const cases: Case[] = [
    {
      name: "unknown field in the write body",
      request: write((b) => ({ ...b, colour: "red" })),
      status: 400,
      code: "invalid_request",
      names: "colour",
    },
    { name: "negative delay", request: write((b) => ({ ...b, delayMs: -1 })), status: 400, code: "invalid_request", names: "delayMs" },
    {
      name: "absurd delay",
      request: write((b) => ({ ...b, delayMs: MAX_DELAY_MS + 1 })),
      status: 400,
      code: "invalid_request",
      names: "delayMs",
    },
    { name: "non-integer delay", request: write((b) => ({ ...b, delayMs: 12.5 })), status: 400, code: "invalid_request", names: "delayMs" },
    {
      name: "delay sent as a string",
      request: write((b) => ({ ...b, delayMs: "10" })),
      status: 400,
      code: "invalid_request",
      names: "delayMs",
    },
    { name: "missing key", request: write(without("key")), status: 400, code: "invalid_request", names: "key" },
    { name: "missing mode", request: write(without("mode")), status: 400, code: "invalid_request", names: "mode" },
    { name: "bad mode", request: write((b) => ({ ...b, mode: "eventually" })), status: 400, code: "invalid_request", names: "mode" },
    { name: "null value", request: write((b) => ({ ...b, value: null })), status: 400, code: "invalid_request", names: "value" },
    {
      name: "namespace with illegal characters",
      request: write((b) => ({ ...b, namespace: `${b.namespace} !` })),
      status: 400,
      code: "invalid_request",
      names: "namespace",
    },
    { name: "body that is not an object", request: write((b) => [b]), status: 400, code: "invalid_request", names: "object" },
    {
      name: "malformed JSON",
      request: (namespace) => ({ method: "POST", path: "/v1/writes", body: JSON.stringify(writeBody(namespace)).slice(0, -1) }),
      status: 400,
      code: "malformed_json",
      names: "JSON",
    },
    {
      // 20,000 levels overflowed the stack inside zod (a 500) before the depth limit: checked on the text first.
      name: "value nested 20,000 levels deep",
      request: (namespace) => ({
        method: "POST",
        path: "/v1/writes",
        body: JSON.stringify(writeBody(namespace, { value: "bad-input-landed" })).replace(
          '"bad-input-landed"',
          `${"[".repeat(20_000)}1${"]".repeat(20_000)}`,
        ),
      }),
      status: 400,
      code: "too_deep",
      names: "64",
    },
    {
      name: "oversized body",
      request: write((b) => ({ ...b, value: "x".repeat(MAX_BODY_BYTES) })),
      status: 413,
      code: "body_too_large",
      names: String(MAX_BODY_BYTES),
    },
    {
      name: "wrong content-type",
      request: (namespace) => ({
        method: "POST",
        path: "/v1/writes",
        body: JSON.stringify(writeBody(namespace)),
        contentType: "text/plain",
      }),
      status: 415,
      code: "unsupported_media_type",
      names: "application/json",
    },
    {
      name: "no content-type",
      request: (namespace) => ({
        method: "POST",
        path: "/v1/writes",
        body: new Blob([JSON.stringify(writeBody(namespace))]),
        contentType: null,
      }),
      status: 415,
      code: "unsupported_media_type",
      names: "application/json",
    },
    {
      name: "wrong method on /v1/writes, with a valid body",
      request: (namespace) => ({ method: "PUT", path: "/v1/writes", body: writeBody(namespace) }),
      status: 405,
      code: "method_not_allowed",
      names: "PUT",
    },
    {
      name: "GET on /v1/writes",
      request: () => ({ method: "GET", path: "/v1/writes" }),
      status: 405,
      code: "method_not_allowed",
      names: "POST",
    },
    {
      name: "unknown route",
      request: () => ({ method: "GET", path: "/v1/nowhere" }),
      status: 404,
      code: "not_found",
      names: "/v1/nowhere",
    },
    {
      name: "unknown handle on GET",
      request: () => ({ method: "GET", path: "/v1/operations/op_missing" }),
      status: 404,
      code: "unknown_handle",
      names: "handle",
    },
    {
      name: "unknown handle on cancel",
      request: () => ({ method: "POST", path: "/v1/operations/op_missing/cancel" }),
      status: 404,
      code: "unknown_handle",
      names: "op_missing",
    },
    {
      name: "malformed percent-encoding in a handle",
      request: () => ({ method: "GET", path: "/v1/operations/%ZZ" }),
      status: 400,
      code: "invalid_request",
      names: "handle",
    },
    {
      name: "unknown query parameter on list",
      request: (namespace) => ({ method: "GET", path: `/v1/operations?${new URLSearchParams({ namespace, colour: "red" })}` }),
      status: 400,
      code: "invalid_request",
      names: "colour",
    },
    {
      name: "bad status on list",
      request: (namespace) => ({ method: "GET", path: `/v1/operations?${new URLSearchParams({ namespace, status: "done" })}` }),
      status: 400,
      code: "invalid_request",
      names: "status",
    },
    {
      name: "list without a namespace",
      request: () => ({ method: "GET", path: "/v1/operations" }),
      status: 400,
      code: "invalid_request",
      names: "namespace",
    },
    {
      name: "read without a key",
      request: (namespace) => ({ method: "GET", path: `/v1/values?${new URLSearchParams({ namespace })}` }),
      status: 400,
      code: "invalid_request",
      names: "key",
    },
    {
      name: "initialise with a null value",
      request: (namespace) => ({ method: "PUT", path: "/v1/values", body: { namespace, key: "k", value: null } }),
      status: 400,
      code: "invalid_request",
      names: "value",
    },
    {
      name: "initialise with an unknown field",
      request: (namespace) => ({ method: "PUT", path: "/v1/values", body: { namespace, key: "k", value: 1, version: 9 } }),
      status: 400,
      code: "invalid_request",
      names: "version",
    },
    {
      name: "reset with an illegal key",
      request: (namespace) => ({
        method: "POST",
        path: "/v1/namespaces/reset",
        body: { namespace, values: { k: "reset", "bad key!": 1 } },
      }),
      status: 400,
      code: "invalid_request",
      names: "values",
    },
    {
      name: "reset with a null value",
      request: (namespace) => ({ method: "POST", path: "/v1/namespaces/reset", body: { namespace, values: { k: null } } }),
      status: 400,
      code: "invalid_request",
      names: "values.k",
    },
  ];

  it.each(cases)("$name → $status $code", async ({ request, status, code, names }) => {
    const { namespace, pending, before } = await populatedNamespace("bad");
    const { method, path, ...options } = request(namespace);
    expectError(await raw(method, path, options), status, code, names);
    await expectUnchanged(namespace, before);
    await client.cancel(pending.handle);
  });

  it("refuses an oversized body sent without a declared length (chunked) with 413", async () => {
    const { namespace, pending, before } = await populatedNamespace("chunked");
    const bytes = new TextEncoder().encode(JSON.stringify(writeBody(namespace, { value: "x".repeat(MAX_BODY_BYTES) })));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 8_192) controller.enqueue(bytes.subarray(i, i + 8_192));
        controller.close();
      },
    });
    // duplex is required by Node's fetch for a streamed body; DOM typings do not know it yet
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: stream, duplex: "half" } as RequestInit;
    const response = await fetch(`${service.url}/v1/writes`, init);
    expectError({ status: response.status, json: await response.json() }, 413, "body_too_large", String(MAX_BODY_BYTES));
    await expectUnchanged(namespace, before);
    await client.cancel(pending.handle);
  });

  describe("on a pending operation's handle", () => {
    const badWaits = ["abc", "-1", "1.5", String(MAX_WAIT_MS + 1), "", " 5"];

    it.each(badWaits)("refuses waitMs=%j with 400 naming waitMs", async (waitMs) => {
      const { namespace, pending, before } = await populatedNamespace("wait");
      const answer = await raw("GET", `/v1/operations/${pending.handle}?${new URLSearchParams({ waitMs })}`);
      expectError(answer, 400, "invalid_request", "waitMs");
      await expectUnchanged(namespace, before);
      await client.cancel(pending.handle);
    });

    it("refuses an unknown query parameter", async () => {
      const { namespace, pending, before } = await populatedNamespace("op-query");
      expectError(await raw("GET", `/v1/operations/${pending.handle}?colour=red`), 400, "invalid_request", "colour");
      await expectUnchanged(namespace, before);
      await client.cancel(pending.handle);
    });

    it.each([
      ["DELETE", ""],
      ["POST", ""],
      ["GET", "/cancel"],
    ])("refuses %s on /v1/operations/:handle%s with 405, leaving it pending", async (method, suffix) => {
      const { namespace, pending, before } = await populatedNamespace("op-method");
      expectError(await raw(method, `/v1/operations/${pending.handle}${suffix}`), 405, "method_not_allowed", method);
      await expectUnchanged(namespace, before);
      await client.cancel(pending.handle);
    });
  });

  it("names the allowed methods in the Allow header of a 405", async () => {
    const response = await fetch(`${service.url}/v1/writes`, { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    const values = await fetch(`${service.url}/v1/values`, { method: "DELETE" });
    expect(values.headers.get("allow")).toBe("GET, PUT");
  });

  it("keeps serving after all that bad input", async () => {
    expect((await raw("GET", "/healthz")).status).toBe(200);
  });

  it("surfaces a refusal through the typed client as a ServiceFailure carrying the status", async () => {
    const failure = await client.operation("op_missing").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceFailure);
    expect((failure as ServiceFailure).status).toBe(404);
    expect((failure as ServiceFailure).detail).toContain("unknown_handle");
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
