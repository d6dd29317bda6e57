// Starts the delayed-write service as its own process: `npm run delayed-write`.
// PORT (default 4100) and HOST (default 127.0.0.1) choose where it listens.
import { createDelayedWriteServer } from "../lib/delayed-write/server";
import { readDelayedWriteEnv } from "../lib/env";
import { stopWithSupervisor } from "../lib/supervisor/with-supervisor";

const env = readDelayedWriteEnv();

const { server, beginShutdown } = createDelayedWriteServer();
server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = address && typeof address === "object" ? address.port : env.PORT;
  // The parent process (replay CLI, npm start) reads this line to learn the port.
  console.log(JSON.stringify({ event: "listening", url: `http://${env.HOST}:${port}` }));
});

function shutdown(signal: string) {
  beginShutdown();
  console.log(JSON.stringify({ event: "shutdown", signal }));
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
stopWithSupervisor(() => shutdown("its supervisor is gone"));
