// The one wrapper every API route goes through (in the manner of dub's withWorkspace): it
// authenticates the caller against the route's permission, parses the path, query and body with
// the route's zod schemas, hands the handler a typed principal and typed inputs, and maps errors.
import "server-only";
import type { z } from "zod";
import { authenticateRequest } from "../../auth/guard";
import type { Permission } from "../../auth/permissions";
import type { Principal } from "../../auth/principal";
import { readServerEnv } from "../../env";
import { DomainError, invalid, notFound } from "../../errors";
import { refuseCrossSiteWrite } from "../cross-site";
import { errorBody, INTERNAL_ERROR_BODY, statusOf } from "../errors";
import { DEFAULT_MAX_BODY_BYTES, parseInput, queryObject, readJsonBody } from "../input";

/** "public": no account needed (the handler gets no principal); otherwise the permission the caller's role must hold. */
export type RouteAccess = Permission | "public";

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<A extends RouteAccess, P, Q, B> {
  permission: A;
  /** The path parameters' schema (Next's dynamic segments). */
  params?: P;
  /** The query's schema; without one, any query parameter is refused. */
  query?: Q;
  /** The JSON body's schema; without one, the body is not read. */
  body?: B;
  maxBodyBytes?: number;
}

export interface RouteInput<A extends RouteAccess, P, Q, B> {
  request: Request;
  principal: A extends "public" ? null : Principal;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** What Next passes a route handler beside the request. */
interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

/** BOUNDARY_LAB_URL's origin, when it is set: browsers behind a reverse proxy that rewrites Host send it. */
export function configuredOrigin(): string | undefined {
  const url = readServerEnv().BOUNDARY_LAB_URL;
  return url === undefined ? undefined : new URL(url).origin;
}

/**
 * Refuses a cross-site write (403 `cross_site`), then authenticates (401 without a principal, 403
 * when the role lacks the permission), then parses path, query and body in that order (400 naming
 * the field; 413 / 400 for a body over the size or nesting limit, 415 for one that is not JSON),
 * then runs the handler. A DomainError becomes its kind's status (errors.ts) with
 * `{error:{code,message,field?}}`; anything else a 500 that leaks nothing (logged here). Answers
 * are `cache-control: no-store` unless the handler says otherwise.
 */
export function apiRoute<
  A extends RouteAccess,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  spec: RouteSpec<A, P, Q, B>,
  handler: (input: RouteInput<A, P, Q, B>) => Promise<Response>,
): (request: Request, context: RouteContext) => Promise<Response> {
  return async (request, context) => {
    try {
      refuseCrossSiteWrite(request.method, request.headers, configuredOrigin());
      const principal = spec.permission === "public" ? null : await authenticateRequest(request, spec.permission);
      const params = spec.params ? parseInput(spec.params, await context.params, "path") : undefined;
      const search = new URL(request.url).searchParams;
      if (!spec.query && search.size > 0) {
        const names = [...new Set(search.keys())].join(", ");
        throw invalid(`unknown field(s) in query: ${names}`, names);
      }
      const query = spec.query ? parseInput(spec.query, queryObject(search), "query") : undefined;
      const body = spec.body
        ? parseInput(spec.body, await readJsonBody(request, spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES), "body")
        : undefined;
      const response = await handler({ request, principal, params, query, body } as RouteInput<A, P, Q, B>);
      if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
      return response;
    } catch (error) {
      if (error instanceof DomainError)
        return Response.json(errorBody(error), { status: statusOf(error.kind), headers: { "cache-control": "no-store" } });
      console.error(`${request.method} ${new URL(request.url).pathname}:`, error);
      return Response.json(INTERNAL_ERROR_BODY, { status: 500, headers: { "cache-control": "no-store" } });
    }
  };
}

/** The answer for an /api/ path no route serves (app/api/[...path]/route.ts): a 404 in the API's shape, whatever the method. */
export async function unknownApiPath(request: Request): Promise<Response> {
  const refusal = notFound(`API route ${new URL(request.url).pathname}`);
  return Response.json(errorBody(refusal), { status: statusOf(refusal.kind), headers: { "cache-control": "no-store" } });
}
