import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { baseUrlOf, readDelayedWriteEnv, readServerEnv, readWorkerEnv } from "./env";

describe("readServerEnv", () => {
  it("defaults to the embedded stack", () => {
    expect(readServerEnv({})).toEqual({
      BOUNDARY_LAB_DATA_DIR: ".data",
      PORT: 3000,
      SHARE_LINK_DEFAULT_DAYS: 14,
      SHARE_LOOKUPS_PER_MINUTE: 60,
      TRUSTED_PROXIES: [],
      WEB_HOST: "0.0.0.0",
      REPLAY_WORKERS: 1,
      EVENT_LOOP_STALL_MS: 100,
      WEB_PROCESSES: Math.min(availableParallelism(), 4),
    });
  });
  it("reads how many web processes serve the port: at least one, the cores (at most 4) by default", () => {
    expect(readServerEnv({ WEB_PROCESSES: "3" }).WEB_PROCESSES).toBe(3);
    expect(() => readServerEnv({ WEB_PROCESSES: "0" })).toThrow(/WEB_PROCESSES/);
    expect(readServerEnv({}).WEB_PROCESSES).toBeGreaterThanOrEqual(1);
    expect(readServerEnv({}).WEB_PROCESSES).toBeLessThanOrEqual(4);
  });
  it("reads how long a hold of the web server's thread must be to be logged (0: never)", () => {
    expect(readServerEnv({ EVENT_LOOP_STALL_MS: "20" }).EVENT_LOOP_STALL_MS).toBe(20);
    expect(readServerEnv({ EVENT_LOOP_STALL_MS: "0" }).EVENT_LOOP_STALL_MS).toBe(0);
    expect(() => readServerEnv({ EVENT_LOOP_STALL_MS: "-1" })).toThrow(/EVENT_LOOP_STALL_MS/);
  });
  it("derives the public origin from PORT unless BOUNDARY_LAB_URL is set", () => {
    expect(baseUrlOf(readServerEnv({ PORT: "3200" }))).toBe("http://localhost:3200");
    expect(baseUrlOf(readServerEnv({ BOUNDARY_LAB_URL: "https://lab.example.org/" }))).toBe("https://lab.example.org");
  });
  it("treats empty variables as unset", () => {
    expect(readServerEnv({ DATABASE_URL: "", DELAYED_WRITE_URL: "" }).DATABASE_URL).toBeUndefined();
  });
  it("reads how many replay workers npm start supervises, and where the web app finds their states", () => {
    expect(readServerEnv({ REPLAY_WORKERS: "2", BOUNDARY_LAB_STACK_FILE: "/tmp/stack.json" })).toMatchObject({
      REPLAY_WORKERS: 2,
      BOUNDARY_LAB_STACK_FILE: "/tmp/stack.json",
    });
    expect(readServerEnv({ REPLAY_WORKERS: "0", BOUNDARY_LAB_STACK_FILE: "" })).toMatchObject({
      REPLAY_WORKERS: 0,
      BOUNDARY_LAB_STACK_FILE: undefined,
    });
  });
  it("reads a server and a service", () => {
    const env = readServerEnv({ DATABASE_URL: "postgresql://u@db:5432/x", DELAYED_WRITE_URL: "http://svc:4100", PORT: "8080" });
    expect(env).toMatchObject({ DATABASE_URL: "postgresql://u@db:5432/x", DELAYED_WRITE_URL: "http://svc:4100", PORT: 8080 });
  });
  it("reads the trusted proxies as a list", () => {
    expect(readServerEnv({ TRUSTED_PROXIES: " 10.0.0.1, loopback,,192.168.0.0/16 " }).TRUSTED_PROXIES).toEqual([
      "10.0.0.1",
      "loopback",
      "192.168.0.0/16",
    ]);
  });
  it("names the variable that is wrong", () => {
    expect(() => readServerEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => readServerEnv({ PORT: "70000" })).toThrow(/PORT/);
    expect(() => readServerEnv({ BETTER_AUTH_SECRET: "short" })).toThrow(/BETTER_AUTH_SECRET: must be at least 32 characters/);
    expect(() => readServerEnv({ BOUNDARY_LAB_URL: "ftp://x" })).toThrow(/BOUNDARY_LAB_URL/);
    expect(() => readServerEnv({ REPLAY_WORKERS: "-1" })).toThrow(/REPLAY_WORKERS/);
    expect(() => readServerEnv({ REPLAY_WORKERS: "two" })).toThrow(/REPLAY_WORKERS/);
  });
});

describe("readWorkerEnv and readDelayedWriteEnv", () => {
  it("default a worker to 16 units, any health port and 30 s to finish its jobs", () => {
    expect(readWorkerEnv({ DELAYED_WRITE_URL: "http://svc:4100" })).toMatchObject({
      DELAYED_WRITE_URL: "http://svc:4100",
      WORKER_CONCURRENCY: 16,
      HEALTH_PORT: 0,
      SHUTDOWN_TIMEOUT_MS: 30_000,
    });
    expect(readWorkerEnv({ WORKER_CONCURRENCY: "8", HEALTH_PORT: "9100", SHUTDOWN_TIMEOUT_MS: "0" })).toMatchObject({
      WORKER_CONCURRENCY: 8,
      HEALTH_PORT: 9100,
      SHUTDOWN_TIMEOUT_MS: 0,
    });
    expect(() => readWorkerEnv({ WORKER_CONCURRENCY: "0" })).toThrow(/WORKER_CONCURRENCY/);
  });
  it("default the service to 127.0.0.1:4100", () => {
    expect(readDelayedWriteEnv({})).toEqual({ PORT: 4100, HOST: "127.0.0.1" });
    expect(readDelayedWriteEnv({ PORT: "0", HOST: "0.0.0.0" })).toEqual({ PORT: 0, HOST: "0.0.0.0" });
    expect(() => readDelayedWriteEnv({ PORT: "x" })).toThrow(/PORT/);
  });
});
