import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "./observer";
import { EventOutbox } from "./outbox";

// The outbox on a real file: nothing lost while Boundary Lab is down, nothing sent twice once it is up,
// and a later recorder of the same run sends what an earlier one left.
const event = (n: number): RecordedEvent => ({ eventId: `e${n}`, type: "touch", at: new Date(n).toISOString(), surface: "s", op: "read" });

describe("EventOutbox", () => {
  it("keeps events on disk while delivery fails and sends each once, in order, when it succeeds", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-outbox-")), "run.jsonl");
    const delivered: string[] = [];
    let down = true;
    const outbox = new EventOutbox(
      file,
      async (events) => {
        if (down) throw new Error("connection refused");
        delivered.push(...events.map((e) => e.eventId));
      },
      () => {},
    );
    outbox.add([event(1), event(2)]);
    outbox.add([event(3)]);
    expect(await outbox.drain(300)).toBe(3);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(3);
    down = false;
    expect(await outbox.drain(10_000)).toBe(0);
    expect(delivered).toEqual(["e1", "e2", "e3"]);
    outbox.close();
  });

  it("resumes from the sent mark: a new recorder of the run sends only what the last one left", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-outbox-")), "run.jsonl");
    const first: string[] = [];
    const one = new EventOutbox(
      file,
      async (events) => void first.push(...events.map((e) => e.eventId)),
      () => {},
    );
    one.add([event(1), event(2)]);
    expect(await one.drain(5_000)).toBe(0);
    one.close();
    // The second recorder could not send (Boundary Lab down) and died with its event on disk.
    const two = new EventOutbox(
      file,
      async () => Promise.reject(new Error("down")),
      () => {},
    );
    two.add([event(3)]);
    expect(await two.drain(200)).toBe(1);
    two.close();
    const third: string[] = [];
    const three = new EventOutbox(
      file,
      async (events) => void third.push(...events.map((e) => e.eventId)),
      () => {},
    );
    expect(three.unsent).toBe(1);
    expect(await three.drain(5_000)).toBe(0);
    three.close();
    expect([first, third]).toEqual([["e1", "e2"], ["e3"]]);
  });
});
