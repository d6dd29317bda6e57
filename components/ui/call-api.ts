"use client";

import type { z } from "zod";

/** What a JSON API call answered: the body, or the error it named (with its code, the field at fault and its details, if any). */
export type ApiResult<T> =
  { ok: true; data: T } | { ok: false; message: string; field?: string; status: number; code?: string; details?: unknown };

/** Calls one of our `/api/v1` routes from the browser (same origin, session cookie). */
export async function callApi<T>(url: string, method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", body?: unknown): Promise<ApiResult<T>> {
  try {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (response.ok) return { ok: true, data: json as T };
    const error = (json as { error?: { code?: string; message?: string; field?: string; details?: unknown } } | null)?.error;
    return {
      ok: false,
      status: response.status,
      message: error?.message ?? `request failed (${response.status})`,
      ...(error?.field ? { field: error.field } : {}),
      ...(error?.code ? { code: error.code } : {}),
      ...(error?.details === undefined ? {} : { details: error.details }),
    };
  } catch (error) {
    return { ok: false, status: 0, message: `the server could not be reached: ${(error as Error).message}` };
  }
}

/**
 * Checks the input with the route's own zod schema first (the form and the handler share it), so
 * that a mistake is named before the request is sent; then calls the route.
 */
export async function callApiChecked<T>(
  schema: z.ZodType,
  url: string,
  method: "POST" | "PUT" | "PATCH",
  input: unknown,
): Promise<ApiResult<T>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return callApi<T>(url, method, parsed.data);
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".");
  return { ok: false, status: 400, message: issue.message, ...(field ? { field } : {}) };
}
