import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccount, createApiKey } from "@/lib/auth/accounts";
import { createAuth } from "@/lib/auth/auth";
import type { Db } from "@/lib/db/prisma";
import { readServerEnv } from "@/lib/env";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/database";

// The protocol routes (docs/review.md, Your own protocols) through their handlers (auth, parsing, error mapping) on a real
// PostgreSQL: POST /api/v1/protocols answers 201 {id} and the protocol is listed; the completion
// argument is written, refused when stale or too long, and exported.
let database: TestDatabase;
let db: Db;
let send: (method: string, path: string, role: "editor" | "viewer", body?: unknown) => Promise<Response>;
const BASE_URL = "http://localhost:3998";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  Object.assign(process.env, { DATABASE_URL: database.url, BETTER_AUTH_SECRET: "s".repeat(40), BOUNDARY_LAB_URL: BASE_URL });
  const auth = createAuth(db, readServerEnv(), database.url);
  const keys: Record<string, string> = {};
  for (const role of ["editor", "viewer"] as const) {
    const account = await createAccount(auth, { email: `${role}@example.test`, password: "a password long enough", role });
    keys[role] = (await createApiKey(auth, account.id, "test")).key;
  }
  const routes: [RegExp, Record<string, unknown>][] = [
    [/^\/api\/v1\/protocols$/, await import("@/app/api/v1/protocols/route")],
    [/^\/api\/v1\/protocols\/([^/]+)$/, await import("@/app/api/v1/protocols/[id]/route")],
    [/^\/api\/v1\/protocols\/([^/]+)\/completion-argument$/, await import("@/app/api/v1/protocols/[id]/completion-argument/route")],
  ];
  send = async (method, path, role, body) => {
    const request = new Request(`${BASE_URL}${path}`, {
      method,
      headers: { authorization: `Bearer ${keys[role]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const pathname = new URL(request.url).pathname;
    for (const [pattern, module] of routes) {
      const match = pattern.exec(pathname);
      const handler = match && (module[method] as Handler | undefined);
      if (handler) return handler(request, { params: Promise.resolve<Record<string, string>>(match[1] ? { id: match[1] } : {}) });
    }
    return new Response(null, { status: 404 });
  };
});
afterAll(async () => {
  await (await import("@/lib/auth/server")).getPrincipalResolver().flushUsage();
  await (await import("@/lib/db/web-process-db")).getDb().$disconnect();
  await database?.drop();
});

describe("protocol routes", () => {
  it("adds a protocol (201 {id}), lists it, and refuses a viewer and bad input naming the field", async () => {
    const created = await send("POST", "/api/v1/protocols", "editor", {
      name: "Route Bench",
      benchmarkVersion: "1.0",
      sources: ["https://example.test/rb"],
    });
    expect(created.status).toBe(201);
    const { id, ...rest } = (await created.json()) as { id: string };
    expect(rest).toEqual({});
    const listed = (await (await send("GET", "/api/v1/protocols", "viewer")).json()) as {
      protocols: { id: string; name: string; fromPaper: boolean }[];
    };
    expect(listed.protocols.find((p) => p.id === id)).toMatchObject({ name: "Route Bench", fromPaper: false });
    expect((await send("POST", "/api/v1/protocols", "viewer", { name: "Nope" })).status).toBe(403);
    const tooLong = await send("POST", "/api/v1/protocols", "editor", { name: "n".repeat(201) });
    expect([tooLong.status, ((await tooLong.json()) as { error: { field: string; message: string } }).error]).toEqual([
      400,
      { code: "invalid_request", field: "name", message: expect.stringContaining("at most 200 characters") },
    ]);
  });

  it("writes the argument (201), refuses a stale one (409) and an over-long answer (400, limit named), and exports LaTeX", async () => {
    const { id } = (await (await send("POST", "/api/v1/protocols", "editor", { name: "Argued_Bench" })).json()) as { id: string };
    const argument = {
      questions: { outcome: { answer: "Success on 100% of tasks." } },
      routes: [{ kind: "queues", description: "Job queue", scope: "in", treatment: "bounded" }],
    };
    const first = await send("POST", `/api/v1/protocols/${id}/completion-argument`, "editor", {
      expectedVersion: null,
      argument,
      reason: "first",
    });
    expect([first.status, await first.json()]).toEqual([201, { version: 1 }]);
    expect(
      (await send("POST", `/api/v1/protocols/${id}/completion-argument`, "editor", { expectedVersion: null, argument, reason: "again" }))
        .status,
    ).toBe(409);
    const long = await send("POST", `/api/v1/protocols/${id}/completion-argument`, "editor", {
      expectedVersion: 1,
      argument: { questions: { finality: { answer: "x".repeat(8001) } } },
      reason: "long",
    });
    expect([long.status, ((await long.json()) as { error: { field: string; message: string } }).error]).toMatchObject([
      400,
      { field: "argument.questions.finality.answer", message: expect.stringContaining("at most 8000 characters") },
    ]);
    const noTreatment = await send("POST", `/api/v1/protocols/${id}/completion-argument`, "editor", {
      expectedVersion: 1,
      argument: { questions: {}, routes: [{ kind: "queues", description: "q", scope: "in" }] },
      reason: "r",
    });
    expect(((await noTreatment.json()) as { error: { field: string } }).error.field).toBe("argument.routes.0.treatment");

    const view = (await (await send("GET", `/api/v1/protocols/${id}/completion-argument`, "viewer")).json()) as {
      current: { version: number };
      status: { answered: number; routesLackingEvidence: number[] };
      revisions: unknown[];
    };
    expect([view.current.version, view.status.answered, view.status.routesLackingEvidence, view.revisions.length]).toEqual([1, 1, [0], 1]);
    const latex = await send("GET", `/api/v1/protocols/${id}/completion-argument?format=latex`, "viewer");
    expect(latex.headers.get("content-type")).toBe("application/x-tex; charset=utf-8");
    expect(latex.headers.get("content-disposition")).toBe('attachment; filename="completion-argument-Argued_Bench.tex"');
    const tex = await latex.text();
    expect(tex).toContain("\\section*{Completion argument: Argued\\_Bench}");
    expect(tex).toContain("Success on 100\\% of tasks.");
    expect((await send("GET", `/api/v1/protocols/${id}/completion-argument?format=xml`, "viewer")).status).toBe(400);
    expect((await send("GET", "/api/v1/protocols/00000000-0000-4000-8000-000000000000/completion-argument", "viewer")).status).toBe(404);
  });
});
