// The recorder's outbox: every event is appended to a spool file on disk before anything is sent,
// and a background loop sends what the file holds past its sent mark, in order, retrying with
// backoff for as long as Boundary Lab does not take it. A recorder that dies, or a Boundary Lab that
// is down, loses nothing: the next recorder of the same run sends the rest from the mark. Events are
// idempotent by eventId, so a batch re-sent after a lost answer is not stored twice.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RecordedEvent } from "./observer";

export const SEND_BATCH = 500;
const BACKOFF_MS = { first: 100, max: 5_000 };

/** Sends one batch; throws when it should be sent again later (a connection error, a non-2xx answer). */
export type Deliver = (events: RecordedEvent[]) => Promise<void>;

export class EventOutbox {
  private readonly lines: string[];
  private sent: number;
  private readonly markFile: string;
  private running: Promise<void> | null = null;
  private closed = false;
  private wake: (() => void) | null = null;
  /** Called after every batch Boundary Lab took (the recorder's heartbeat says so at once). */
  onDelivered: (() => void) | null = null;

  constructor(
    private readonly spoolFile: string,
    private readonly deliver: Deliver,
    private readonly log: (line: string) => void,
  ) {
    mkdirSync(path.dirname(spoolFile), { recursive: true });
    this.markFile = `${spoolFile}.sent`;
    this.lines = existsSync(spoolFile) ? readFileSync(spoolFile, "utf8").split("\n").filter(Boolean) : [];
    this.sent = existsSync(this.markFile) ? Math.min(Number(readFileSync(this.markFile, "utf8")) || 0, this.lines.length) : 0;
    if (this.sent < this.lines.length) log(`outbox: ${this.lines.length - this.sent} event(s) from an earlier recorder still to send`);
  }

  /** Appends the events to the spool (synchronously: a few microseconds) and wakes the sender. */
  add(events: readonly RecordedEvent[]): void {
    if (events.length === 0) return;
    const lines = events.map((event) => JSON.stringify(event));
    appendFileSync(this.spoolFile, lines.map((line) => `${line}\n`).join(""));
    this.lines.push(...lines);
    this.start();
  }

  /** The observation time of the first event not yet taken by Boundary Lab (everything observed before it has been). */
  oldestUnsentAt(): string | undefined {
    const line = this.lines[this.sent];
    return line === undefined ? undefined : (JSON.parse(line) as RecordedEvent).at;
  }

  /** Events spooled but not yet taken by Boundary Lab. */
  get unsent(): number {
    return this.lines.length - this.sent;
  }

  /** Starts the sending loop (also for events an earlier recorder left); a loop waiting out a backoff keeps waiting. */
  start(): void {
    this.running ??= this.loop().finally(() => (this.running = null));
  }

  /** Waits until every event is sent, or `timeoutMs` passed; answers how many are left unsent (kept on disk). */
  async drain(timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    this.start();
    while (this.unsent > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.unsent;
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  private async loop(): Promise<void> {
    let backoff = BACKOFF_MS.first;
    while (!this.closed && this.sent < this.lines.length) {
      const batch = this.lines.slice(this.sent, this.sent + SEND_BATCH);
      try {
        await this.deliver(batch.map((line) => JSON.parse(line) as RecordedEvent));
        this.sent += batch.length;
        writeFileSync(this.markFile, String(this.sent));
        this.onDelivered?.();
        backoff = BACKOFF_MS.first;
      } catch (error) {
        this.log(`outbox: ${batch.length} event(s) not sent (${(error as Error).message}); kept on disk, retrying in ${backoff} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, backoff);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
        backoff = Math.min(backoff * 2, BACKOFF_MS.max);
      }
    }
  }
}
