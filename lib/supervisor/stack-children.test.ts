import { describe, expect, it } from "vitest";
import { isWorkerReadyLine, stackChildren, type StackOptions } from "./stack-children";

const options: StackOptions = {
  databaseUrl: "postgresql://u@127.0.0.1:5555/postgres",
  serviceUrl: "http://127.0.0.1:4321",
  servicePort: 4321,
  replayWorkers: 2,
  webPort: 3000,
  webHost: "0.0.0.0",
  stackFile: "/data/stack.json",
};

describe("stackChildren", () => {
  it("runs the service on its fixed port, the replay workers and the web app, each knowing the database and the service", () => {
    const { service, workers, web } = stackChildren(options);
    expect(service).toMatchObject({ name: "delayed-write service", env: { PORT: "4321", HOST: "127.0.0.1" } });
    expect(workers.map((w) => w.name)).toEqual(["replay worker 1", "replay worker 2"]);
    for (const child of [...workers, web])
      expect(child.env).toMatchObject({ DATABASE_URL: options.databaseUrl, DELAYED_WRITE_URL: options.serviceUrl });
    expect(web).toMatchObject({
      name: "web app",
      ready: { port: 3000, host: "127.0.0.1" },
      env: { PORT: "3000", WEB_HOST: "0.0.0.0", BOUNDARY_LAB_STACK_FILE: "/data/stack.json" },
    });
    expect(web.args.at(-1)).toMatch(/workers\/web\.ts$/);
    expect(stackChildren({ ...options, webHost: "10.0.0.5" }).web.ready).toEqual({ port: 3000, host: "10.0.0.5" });
  });

  it("runs no service when one is given, and as many workers as asked, none included", () => {
    expect(stackChildren({ ...options, servicePort: null }).service).toBeNull();
    expect(stackChildren({ ...options, replayWorkers: 0 }).workers).toEqual([]);
  });

  it("knows each child is ready from what it prints", () => {
    const { service, workers } = stackChildren(options);
    const serviceReady = (service!.ready as { line: (l: string) => boolean }).line;
    expect(serviceReady(JSON.stringify({ event: "listening", url: "http://127.0.0.1:4321" }))).toBe(true);
    expect(serviceReady(JSON.stringify({ event: "shutdown", signal: "SIGTERM" }))).toBe(false);
    expect(workers[0]!.ready).toEqual({ line: isWorkerReadyLine });
  });
});

describe("isWorkerReadyLine", () => {
  it("accepts the worker's ready event and nothing else", () => {
    expect(isWorkerReadyLine('worker: {"event":"ready","poolId":"pool-x","healthPort":40000}')).toBe(true);
    expect(isWorkerReadyLine('worker: {"event":"stopped"}')).toBe(false);
    expect(isWorkerReadyLine("worker: replay worker pool-x ready: concurrency 16")).toBe(false);
    expect(isWorkerReadyLine("worker: {not json")).toBe(false);
  });
});
