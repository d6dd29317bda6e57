// The recorder's heartbeats (lib/evaluations/live/recorders.ts): it registers with its run before the
// agent's first message is passed on, then says every second, and after every batch delivered, until
// when everything it observed has reached Boundary Lab; at its end it says it stopped. A score waits
// for them (bounded), so that a harness that scores right after its last call reads an audit that has
// that call's evidence, or an answer that says the evidence is still arriving, never "final".
import type { BoundaryLabSink } from "./boundary-lab-sink";
import type { EventOutbox } from "./outbox";
import { now } from "./recording";

export const HEARTBEAT_EVERY_MS = 1_000;
/** How long the agent's first message waits at the most for the run to be opened and this recorder registered. */
export const REGISTER_WAIT_MS = 2_000;

export class RecorderPresence {
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly sink: Pick<BoundaryLabSink, "heartbeat">,
    private readonly outbox: Pick<EventOutbox, "oldestUnsentAt">,
    private readonly log: (line: string) => void,
  ) {}

  /** Registers the recorder (opening its run), waiting REGISTER_WAIT_MS at the most; then beats every second. */
  async start(): Promise<void> {
    const registered = this.beat();
    await Promise.race([registered, new Promise((resolve) => setTimeout(resolve, REGISTER_WAIT_MS))]);
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  /** Sends a heartbeat now (one at a time: a beat asked for meanwhile is sent after it). */
  beat(): Promise<void> {
    if (this.sending) {
      this.again = true;
      return this.sending;
    }
    this.sending = this.send({}).finally(() => {
      this.sending = null;
      if (this.again) {
        this.again = false;
        void this.beat();
      }
    });
    return this.sending;
  }

  /** The last heartbeat: stopped, flushed through what was delivered. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sending;
    await this.send({ stopped: true });
  }

  private async send(extra: { stopped?: boolean }): Promise<void> {
    // Read before the request: what is delivered by now stays delivered (events are only ever added after it).
    const oldest = this.outbox.oldestUnsentAt();
    const flushedThrough = oldest === undefined ? now() : new Date(Date.parse(oldest) - 1).toISOString();
    try {
      await this.sink.heartbeat({ flushedThrough, ...extra });
    } catch (error) {
      this.log(`heartbeat not sent (${(error as Error).message})`);
    }
  }
}
