// The OTLP receiver's db tests' set-up (app/api/otel/v1/traces/*.db.test.ts): a test database, the
// route handlers the file lists served over real HTTP, an editor's key and the typed client, and the
// delayed-write service whose writes the traced agents wait for.
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, inject } from "vitest";
import { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { evaluationClient, type EvaluationClient } from "../evaluations/client/api-client";
import type { Db } from "../db/prisma";
import type { TestDatabase } from "./database";
import { routeTestDatabase } from "./route-test-database";
import { serveRoutes, type ServedRoute } from "./route-server";

export interface OtlpRoutes {
  database: TestDatabase;
  key: string;
  api: { origin: string; close(): Promise<void> };
  lab: EvaluationClient;
  bank: DelayedWriteClient;
}

/** Registers the file's hooks; `routes` is called once the environment names the test database (the route modules read it). */
export function useOtlpRoutes(routes: () => Promise<ServedRoute[]>, onReady: (served: OtlpRoutes) => void): void {
  let served: OtlpRoutes | undefined;
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    const { database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "otel");
    const api = await serveRoutes(await routes());
    service = await spawnDelayedWriteService();
    served = { database, key, api, lab: evaluationClient({ baseUrl: api.origin, apiKey: key }), bank: new DelayedWriteClient(service.url) };
    onReady(served);
  }, 120_000);
  afterAll(async () => {
    await served?.api.close();
    await service?.stop();
    await served?.database.drop();
  });
}

/** An OpenTelemetry SDK whose spans, of a service in `evaluation`, go to `exporter` as they end. */
export function tracerProvider(exporter: SpanExporter, evaluation: string) {
  return new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "bank-agents", "boundary_lab.evaluation": evaluation }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
}

export const evaluationIdOf = async (db: Db, name: string) =>
  (await db.evaluation.findUniqueOrThrow({ where: { name }, select: { id: true } })).id;
