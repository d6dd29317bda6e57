// Live-run events for the timeline's tests (lib/evaluations/live/timeline*.test.ts): a run that
// started at T0, effects requested and their statuses at seconds after it, admitted against no
// stored evidence.
import { admitEvents, type AdmissionOptions, type StoredEvidence } from "../evaluations/live/timeline";
import type { LiveEvent } from "../evaluations/live/live-run-schemas";

export const T0 = Date.parse("2026-12-04T10:00:00.000Z");
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
export const empty: StoredEvidence = {
  startedAtMs: T0,
  effects: new Map(),
  statuses: new Map(),
  counts: { effect_requested: 0, touch: 0, reset: 0, model_call: 0 },
  storedById: new Map(),
};
export const requested = (eventId: string, effectId: string, s: number, extra: object = {}) => ({
  eventId,
  type: "effect_requested",
  at: at(s),
  effectId,
  tool: "send_money",
  ...extra,
});
export const status = (eventId: string, effectId: string, value: string, s: number) => ({
  eventId,
  type: "effect_status",
  at: at(s),
  effectId,
  status: value,
});

export const head = { externalId: "run-1", taskId: "task-1", groupId: null, attempt: null, startedAtMs: T0 };
export const events = (list: object[], options: AdmissionOptions = {}) =>
  admitEvents(empty, list, options).accepted.map((a) => a.event as LiveEvent);
