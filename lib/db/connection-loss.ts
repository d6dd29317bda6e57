/**
 * PostgreSQL ending a connection (a restart, a failover, an administrator's pg_terminate_backend)
 * reaches node-postgres as an 'error' event on the client. The pool and every query on that client
 * already fail with it; but a client that a library holds with no 'error' listener at that moment
 * (graphile-worker's and Prisma's pools both have windows where a checked-out client has none)
 * turns the event into an uncaught exception, and the whole worker died on a database restart.
 */

/** SQLSTATE class 57: operator intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now). */
const OPERATOR_INTERVENTION = /^57P0[1-3]$/;
/** node-postgres's own message when the socket closes under a connected client. */
const SOCKET_CLOSED = new Set(["Connection terminated unexpectedly", "Connection terminated"]);
/**
 * The system calls whose ECONNRESET is a reset socket (`read ECONNRESET`: the server or something
 * between dropped the connection). node-postgres passes its socket's error on unchanged, and nothing
 * on it says which socket it came from, so another socket's reset nobody listened for is survived too.
 * That is accepted: a reset says only that the peer dropped that connection (whatever ran on it has
 * failed), and these processes' other sockets have listeners (the http server's, fetch's). An
 * ECONNRESET without a system call (http's "socket hang up") is not a socket's and still ends the process.
 */
const RESET_SYSCALLS = new Set(["read", "write"]);

/** True when `error` says only that PostgreSQL closed a connection, nothing about the work on it. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code === "string" && OPERATOR_INTERVENTION.test(code)) return true;
  if (code === "ECONNRESET" && typeof syscall === "string" && RESET_SYSCALLS.has(syscall)) return true;
  return SOCKET_CLOSED.has(error.message);
}

/**
 * For long-running processes that hold database pools (the web app, the replay worker, the replay CLI): a lost
 * connection that nobody listened for is logged and survived, since whatever ran on it has failed
 * and is retried by its owner; any other uncaught exception still ends the process, as Node would.
 */
export function surviveConnectionLoss(log: (line: string) => void): void {
  process.on("uncaughtException", (error, origin) => {
    if (isConnectionLoss(error)) {
      log(`a database connection was lost with no listener (${(error as Error).message}); its work fails and is retried`);
      return;
    }
    console.error(origin === "unhandledRejection" ? "Unhandled rejection:" : "Uncaught exception:", error);
    process.exit(1);
  });
}
