import { getDb } from "@/lib/db/client";
import { getServiceClient } from "@/lib/delayed-write/web-client";

export const dynamic = "force-dynamic";

const TIMEOUT_MS = 2_000;

function within<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function check(name: string, probe: () => Promise<"ok" | "none">): Promise<"ok" | "none" | "error"> {
  try {
    return await within(probe());
  } catch (error) {
    console.error(`health: ${name} check failed: ${(error as Error).message}`);
    return "error";
  }
}

/**
 * The web process answers; `db`: its database ran `SELECT 1`; `worker`: a replay worker's heartbeat
 * is under 5 s old ("none" when no worker runs); `delayedWrite`: the service is ready. 503 when any is not ok.
 */
export async function GET(): Promise<Response> {
  const db = getDb();
  const [database, worker, delayedWrite] = await Promise.all([
    check("database", async () => (await db.$queryRaw`SELECT 1`, "ok")),
    check("worker", async () => ((await db.replayWorker.count({ where: { heartbeatAt: { gt: new Date(Date.now() - 5_000) } } })) > 0 ? "ok" : "none")),
    check("delayed-write", async () => {
      const service = getServiceClient();
      if (!service) return "none";
      await service.clock();
      return "ok";
    }),
  ]);
  const healthy = database === "ok" && worker === "ok" && delayedWrite === "ok";
  return Response.json(
    { status: healthy ? "ok" : "degraded", db: database, worker, delayedWrite },
    { status: healthy ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
