import { Pool, type Dispatcher } from "undici";
import type { z } from "zod";
import {
  cancelResponseSchema,
  clockResponseSchema,
  entriesResponseSchema,
  errorResponseSchema,
  operationListResponseSchema,
  operationResponseSchema,
  resetResponseSchema,
  valueResponseSchema,
  writeResponseSchema,
  type OperationStatus,
  type ResetOperations,
  type WriteRequest,
} from "./delayed-write-schemas";

/**
 * The service could not be reached or answered outside its contract. The replay classifies the
 * trial as an environment failure with this evidence rather than as an agent result.
 */
export class ServiceFailure extends Error {
  constructor(
    readonly request: string,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`delayed-write service: ${request}: ${detail}`);
  }
}

type JsonValue = WriteRequest["value"];

/** A typed client of the delayed-write service; every answer is validated against its schema. */
export class DelayedWriteClient {
  // undici's pool: several times the request rate of fetch on this machine, which keeps the
  // replay's own latency far below the shortest delay it measures (docs/replay.md).
  private readonly pool: Pool;

  constructor(
    readonly baseUrl: string,
    connections = 256,
  ) {
    this.pool = new Pool(baseUrl, { connections, keepAliveTimeout: 30_000 });
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async call<T extends z.ZodType>(schema: T, method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<z.infer<T>> {
    const label = `${method} ${path}`;
    let status: number;
    let text: string;
    try {
      const response = await this.pool.request({
        method,
        path,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw new ServiceFailure(label, `unreachable (${(error as Error).message})`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ServiceFailure(label, `answered ${status} with a body that is not JSON`, status);
    }
    if (status < 200 || status > 299) {
      const parsed = errorResponseSchema.safeParse(json);
      throw new ServiceFailure(
        label,
        parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : `answered ${status}`,
        status,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new ServiceFailure(label, `answered outside its contract: ${parsed.error.issues[0]?.message}`, status);
    return parsed.data;
  }

  /** The service's clock origin (epoch ms) and its current monotonic time. */
  clock() {
    return this.call(clockResponseSchema, "GET", "/v1/clock");
  }

  write(request: WriteRequest) {
    return this.call(writeResponseSchema, "POST", "/v1/writes", request);
  }

  /** Reads an operation by handle; with waitMs, the service answers once it is terminal or the wait runs out. */
  operation(handle: string, waitMs?: number) {
    const query = waitMs === undefined ? "" : `?waitMs=${waitMs}`;
    return this.call(operationResponseSchema, "GET", `/v1/operations/${encodeURIComponent(handle)}${query}`);
  }

  cancel(handle: string) {
    return this.call(cancelResponseSchema, "POST", `/v1/operations/${encodeURIComponent(handle)}/cancel`);
  }

  operations(namespace: string, status?: OperationStatus) {
    const query = new URLSearchParams({ namespace, ...(status ? { status } : {}) });
    return this.call(operationListResponseSchema, "GET", `/v1/operations?${query}`);
  }

  /** Operations in every namespace that starts with `prefix`. */
  operationsUnder(prefix: string, status?: OperationStatus) {
    const query = new URLSearchParams({ prefix, ...(status ? { status } : {}) });
    return this.call(operationListResponseSchema, "GET", `/v1/operations?${query}`);
  }

  read(namespace: string, key: string) {
    return this.call(valueResponseSchema, "GET", `/v1/values?${new URLSearchParams({ namespace, key })}`);
  }

  initialise(namespace: string, key: string, value: JsonValue) {
    return this.call(valueResponseSchema, "PUT", "/v1/values", { namespace, key, value });
  }

  /** `purge` also forgets the namespace's terminal operations; the replay keeps them as evidence. */
  reset(namespace: string, values: Record<string, JsonValue>, operations?: ResetOperations) {
    return this.call(resetResponseSchema, "POST", "/v1/namespaces/reset", { namespace, values, ...(operations && { operations }) });
  }

  /** Every key the namespace holds, with its value. */
  entries(namespace: string) {
    return this.call(entriesResponseSchema, "GET", `/v1/entries?${new URLSearchParams({ namespace })}`);
  }
}
