import { describe, expect, it } from "vitest";
import { ServiceFailure } from "./delayed-write-client";
import { MAX_BODY_BYTES, MAX_DELAY_MS, MAX_WAIT_MS } from "./delayed-write-schemas";
import {
  type RawOptions,
  client,
  expectError,
  expectUnchanged,
  populatedNamespace,
  raw,
  service,
  useDelayedWriteService,
  writeBody,
} from "../testing/delayed-write-http";

// Bad input to the real service process over real HTTP: every refusal names the problem and changes nothing.

useDelayedWriteService();
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
