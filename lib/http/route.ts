import { z } from "zod";

/** An error a route handler means to show the caller, with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Shown to the caller with the error, e.g. both versions of an edit conflict. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);

/** Parses input with its schema; the first problem becomes a 400 that names the field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, where: "body" | "query" | "path"): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : issue.path.join(".");
  const message = issue.code === "unrecognized_keys" ? `unknown field(s) in ${where}: ${field}` : `${where}${field ? `.${field}` : ""}: ${issue.message}`;
  throw new ApiError(400, "invalid_request", message, field || undefined);
}

export async function readJsonBody(request: Request, maxBytes = 256 * 1024): Promise<unknown> {
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw new ApiError(413, "body_too_large", `body exceeds ${maxBytes} bytes`);
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, "malformed_json", `body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Every API route goes through here: typed errors become their status with `{error:{code,message,field?}}`;
 * anything else becomes a 500 that leaks no detail (it is logged on the server).
 */
export function apiRoute<C>(handler: (request: Request, context: C) => Promise<Response>): (request: Request, context: C) => Promise<Response> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (error instanceof ApiError) {
        return Response.json(
          { error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}), ...(error.details === undefined ? {} : { details: error.details }) } },
          { status: error.status },
        );
      }
      console.error(`${request.method} ${new URL(request.url).pathname}:`, error);
      return Response.json({ error: { code: "internal", message: "internal error" } }, { status: 500 });
    }
  };
}

export const experimentIdSchema = z.strictObject({ id: z.uuid("id must be an experiment id (a UUID)") });
