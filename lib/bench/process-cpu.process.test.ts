import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { treeCpuMs } from "./process-cpu";

/** A shell that runs a node grandchild spending `ms` of CPU time (not wall time) and then printing "done". */
const burner = (ms: number) => [
  "-c",
  `"${process.execPath}" -e 'const spent = () => { const u = process.cpuUsage(); return u.user + u.system; }; const end = spent() + ${ms * 1000}; while (spent() < end); console.log("done")'`,
];

describe("treeCpuMs", () => {
  it("counts a reaped descendant's CPU once: its time moves into its parent's, and the parent's into this process's", () => {
    const before = treeCpuMs(process.pid);
    expect(spawnSync("sh", burner(1000), { encoding: "utf8" }).stdout.trim()).toBe("done");
    const spent = treeCpuMs(process.pid) - before;
    // At least the grandchild's 1,000 ms; counted twice (its own and again in its parent's) it would be 2,000 or more.
    expect(spent).toBeGreaterThanOrEqual(1000);
    expect(spent).toBeLessThan(2000);
  });

  it("counts a live grandchild through its parent", async () => {
    const running = spawn("sh", burner(600), { stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(running, "exit");
    const start = treeCpuMs(running.pid!);
    let seen = start;
    // Poll until the live tree has spent 200 ms: counted only by walking from the shell to its node child.
    while (seen - start < 200) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = treeCpuMs(running.pid!);
    }
    expect(seen - start).toBeGreaterThanOrEqual(200);
    await exited;
  });

  it("is 0 for processes that do not exist", () => {
    expect(treeCpuMs(2 ** 22 + 1)).toBe(0);
  });
});
