// What the delayed-write service's HTTP tests share: one real service process per test file, a typed
// client of it, raw requests, and assertions on its error contract and on what a namespace holds.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { errorResponseSchema, writeResponseSchema, type WriteRequest } from "../delayed-write/delayed-write-schemas";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";

export let service: ServiceProcess;
export let client: DelayedWriteClient;
/** Every test gets its own namespace, so no test can see another's writes. */
export const freshNamespace = (label: string) => `t-${label}-${randomUUID()}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function writeBody(namespace: string, overrides: Partial<WriteRequest> = {}): WriteRequest {
  return { namespace, key: "k", value: "written", delayMs: 0, mode: "async", ...overrides };
}

export interface RawOptions {
  /** An object is sent as JSON; a string is sent verbatim. */
  body?: unknown;
  contentType?: string | null;
}

/** One raw HTTP request; answers the status and the parsed JSON body. */
export async function raw(method: string, path: string, options: RawOptions = {}): Promise<{ status: number; json: unknown }> {
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
export function expectError(answer: { status: number; json: unknown }, status: number, code: string, names: string) {
  expect(answer.status).toBe(status);
  const parsed = errorResponseSchema.safeParse(answer.json);
  expect(parsed.success, `error body ${JSON.stringify(answer.json)}`).toBe(true);
  const error = parsed.data!.error;
  expect(error.code).toBe(code);
  expect(`${error.field ?? ""} ${error.message}`).toContain(names);
}

/** What a namespace holds: its operations (with status) and the value of one key. */
export async function snapshot(namespace: string, key = "k") {
  const [{ operations }, { entry }] = await Promise.all([client.operations(namespace), client.read(namespace, key)]);
  return { operations: operations.map((op) => ({ handle: op.handle, status: op.status })), entry };
}

/** Serves bad-input tests: a namespace that holds one initialised value and one pending operation. */
export async function populatedNamespace(label: string) {
  const namespace = freshNamespace(label);
  await client.initialise(namespace, "k", "initial");
  const pending = (await client.write(writeBody(namespace, { key: "other", delayMs: 60_000 }))).operation;
  return { namespace, pending, before: await snapshot(namespace) };
}

export async function expectUnchanged(namespace: string, before: Awaited<ReturnType<typeof snapshot>>) {
  expect(await snapshot(namespace)).toEqual(before);
}

/** Waits until the service's own clock has passed `atMs`, so "after the delay" is judged by the service. */
export async function untilServiceTime(atMs: number): Promise<void> {
  for (;;) {
    const { serviceTimeMs } = await client.clock();
    if (serviceTimeMs >= atMs) return;
    await sleep(Math.max(1, atMs - serviceTimeMs));
  }
}

export async function writeRaw(body: unknown) {
  const answer = await raw("POST", "/v1/writes", { body });
  return { status: answer.status, operation: writeResponseSchema.parse(answer.json).operation };
}

/** Starts the file's service process before its tests and stops it after them. */
export function useDelayedWriteService(): void {
  beforeAll(async () => {
    service = await spawnDelayedWriteService();
    client = new DelayedWriteClient(service.url);
  });

  afterAll(async () => {
    await client?.close();
    await service?.stop();
  });
}
