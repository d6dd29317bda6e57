import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

const DB_TIMEOUT_MS = 2_000;

async function databaseAnswers(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      getDb().$queryRaw`SELECT 1`,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DB_TIMEOUT_MS} ms`)), DB_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch (error) {
    console.error(`health: database check failed: ${(error as Error).message}`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The web process answers; `db` says whether its database ran `SELECT 1` within 2 s (503 when not). */
export async function GET(): Promise<Response> {
  const db = (await databaseAnswers()) ? "ok" : "error";
  return Response.json({ status: "ok", db }, { status: db === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } });
}
