import { getDb } from "@/lib/db/web-process-db";
import { getServiceClient } from "@/lib/delayed-write/web-client";
import { readServerEnv } from "@/lib/env";
import { apiRoute } from "@/lib/http/route/api-route";
import { healthReport, type ProbeResult } from "@/lib/supervisor/health-status";
import { readStackStatus, type ChildStatus } from "@/lib/supervisor/stack-status";

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

async function check(name: string, probe: () => Promise<"ok" | "none">): Promise<ProbeResult> {
  try {
    return await within(probe());
  } catch (error) {
    console.error(`health: ${name} check failed: ${(error as Error).message}`);
    return "error";
  }
}

/** Under `npm start`, the supervised children's states (BOUNDARY_LAB_STACK_FILE); null when unsupervised. */
function supervisedChildren(): ChildStatus[] | null {
  const file = readServerEnv().BOUNDARY_LAB_STACK_FILE;
  if (!file) return null;
  try {
    // Missing while the supervisor stops: then only the probes speak.
    return readStackStatus(file)?.children ?? null;
  } catch (error) {
    console.error(`health: unreadable status file ${file}: ${(error as Error).message}`);
    return null;
  }
}

/**
 * The web process answers; `db`: its database ran `SELECT 1`; `worker`: a replay worker's heartbeat
 * is under 5 s old ("none" when no worker runs); `delayedWrite`: the service is ready; under
 * `npm start`, `children`: each supervised process's state. `degraded` names what is not ok, and
 * the answer is then 503 (lib/supervisor/health-status.ts). Public, like every probe's target.
 */
export const GET = apiRoute({ permission: "public" }, async () => {
  const db = getDb();
  const [database, worker, delayedWrite] = await Promise.all([
    check("database", async () => (await db.$queryRaw`SELECT 1`, "ok")),
    check("worker", async () =>
      (await db.replayWorker.count({ where: { heartbeatAt: { gt: new Date(Date.now() - 5_000) } } })) > 0 ? "ok" : "none",
    ),
    check("delayed-write", async () => {
      const service = getServiceClient();
      if (!service) return "none";
      await service.clock();
      return "ok";
    }),
  ]);
  const { httpStatus, body } = healthReport({ db: database, worker, delayedWrite }, supervisedChildren());
  return Response.json(body, { status: httpStatus, headers: { "cache-control": "no-store" } });
});
