import { toNextJsHandler } from "better-auth/next-js";
import { getAuth, getPrincipalResolver } from "@/lib/auth/server";

export const dynamic = "force-dynamic";

// Better Auth's own endpoints (sign-in, sign-out, password change, session). Resolved per request,
// so that building the app needs no database.
export const GET = (request: Request) => toNextJsHandler(getAuth()).GET(request);

/** Any change through them (a sign-out, a password change that ends other sessions) takes effect at once in this process. */
export async function POST(request: Request): Promise<Response> {
  try {
    return await toNextJsHandler(getAuth()).POST(request);
  } finally {
    getPrincipalResolver().clear();
  }
}
