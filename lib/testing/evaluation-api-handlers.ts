// For tests that call the evaluation API's route handlers in process, through the typed client: a
// test database the handlers use (their getDb() reads DATABASE_URL, their auth the secret and origin
// set here), an editor's and a viewer's API key, and a fetch that hands each request to the handler
// the test file's route table names. The file closes the handlers' own clients itself (lib/ may not
// import them here): after its own afterAll, this one drops the database.
import { afterAll, beforeAll, inject } from "vitest";
import { createAccount, createApiKey } from "../auth/accounts";
import { createAuth } from "../auth/auth";
import type { Db } from "../db/prisma";
import { readServerEnv } from "../env";
import { EvaluationApiError, evaluationClient, type EvaluationClient } from "../evaluations/client/api-client";
import { createTestDatabase, type TestDatabase } from "./database";

export const HANDLERS_ORIGIN = "http://localhost:3999";

/** Each route: its path pattern, the names of its captured parameters, and its route module. */
export type RouteTable = [RegExp, string[], Record<string, unknown>][];
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface EvaluationApiHandlers {
  db: Db;
  editor: EvaluationClient;
  viewer: EvaluationClient;
  send: (request: Request) => Promise<Response>;
  editorKey: string;
  editorAuthorization: string;
}

/**
 * Registers the file's hooks. `routes` is called once the environment names the test database (the
 * route modules read it when imported); `onReady` receives what the tests use.
 */
export function useEvaluationApiHandlers(routes: () => Promise<RouteTable>, onReady: (handlers: EvaluationApiHandlers) => void): void {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
    const db = database.db;
    Object.assign(process.env, { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "s".repeat(40), BOUNDARY_LAB_URL: HANDLERS_ORIGIN });
    const auth = createAuth(db, readServerEnv(), database.url);
    const keyOf = async (role: "editor" | "viewer") => {
      const account = await createAccount(auth, { email: `${role}@example.test`, password: "a password long enough", role });
      return (await createApiKey(auth, account.id, "ingest")).key;
    };
    const table = await routes();
    const send = async (request: Request) => {
      const path = new URL(request.url).pathname;
      for (const [pattern, names, module] of table) {
        const match = pattern.exec(path);
        const handler = match && (module[request.method] as Handler | undefined);
        if (handler)
          return handler(request, {
            params: Promise.resolve(Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]))),
          });
      }
      return new Response(null, { status: 404 });
    };
    const editorKey = await keyOf("editor");
    onReady({
      db,
      send,
      editorKey,
      editorAuthorization: `Bearer ${editorKey}`,
      editor: evaluationClient({ baseUrl: HANDLERS_ORIGIN, apiKey: editorKey, fetch: send }),
      viewer: evaluationClient({ baseUrl: HANDLERS_ORIGIN, apiKey: await keyOf("viewer"), fetch: send }),
    });
  });
  afterAll(async () => {
    await database?.drop();
  });
}

/** What a client call's EvaluationApiError says (status, code, field), or null when it succeeds. */
export const apiRefusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof EvaluationApiError ? { status: error.status, code: error.code, field: error.field } : error),
  );

/** How many of an evaluation's runs, effects, resolutions and touches are stored. */
export async function storedCounts(db: Db, evaluationId: string) {
  const where = { where: { evaluationId } };
  return {
    runs: await db.evaluationRun.count(where),
    effects: await db.evaluationEffect.count(where),
    resolutions: await db.evaluationEffectResolution.count(where),
    touches: await db.evaluationTouch.count(where),
  };
}
