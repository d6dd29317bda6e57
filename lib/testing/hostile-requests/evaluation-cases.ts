// Hostile requests to an evaluation's scoring (PATCH) and its effect policy (PUT …/effect-policy).
import { expect } from "vitest";
import { MAX_LABEL_MAP_ENTRIES } from "../../evaluations/evaluation-requests";
import { UNKNOWN_UUID, evaluationPath, patch, policy, scoringOf, apiError, type HostileCase } from "./requests";

/** PATCH /api/v1/evaluations/{id}: how scores without a label are read. */
export const scoringCases: HostileCase[] = [
  {
    name: "PATCH evaluation: a label map and a threshold are stored",
    request: patch({ labelMap: { Relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 }),
    answer: { status: 200, body: { labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 } },
    writes: true,
    after: async (t) =>
      expect(await scoringOf(t)).toEqual({ labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 }),
  },
  {
    name: "PATCH evaluation: scoreThreshold as text",
    request: patch({ scoreThreshold: "0.5" }),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: scoreThreshold 1e400 (not finite)",
    request: patch('{"scoreThreshold": 1e400}'),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: scoreThreshold true",
    request: patch({ scoreThreshold: true }),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: labelMap an array",
    request: patch({ labelMap: ["relevant"] }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: labelMap a string",
    request: patch({ labelMap: '{"relevant":"success"}' }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: a label read as neither",
    request: patch({ labelMap: { relevant: "maybe" } }),
    answer: apiError(400, "invalid_request", "labelMap.relevant"),
  },
  {
    name: "PATCH evaluation: a label read as a number",
    request: patch({ labelMap: { relevant: 1 } }),
    answer: apiError(400, "invalid_request", "labelMap.relevant"),
  },
  {
    name: "PATCH evaluation: a label with NUL",
    request: patch({ labelMap: { "rel\u0000evant": "success" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: "PATCH evaluation: a label longer than 200 characters",
    request: patch({ labelMap: { ["x".repeat(201)]: "success" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: `PATCH evaluation: ${MAX_LABEL_MAP_ENTRIES + 1} labels`,
    request: patch({
      labelMap: Object.fromEntries(Array.from({ length: MAX_LABEL_MAP_ENTRIES + 1 }, (_, n) => [`label-${n}`, "success"])),
    }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: a 300 KiB label map (past the body limit), its whole body written first",
    request: (t) => ({
      ...patch({ labelMap: Object.fromEntries(Array.from({ length: 10_000 }, (_, n) => [`label-${n}-${"x".repeat(20)}`, "success"])) })(t),
      client: "whole-body-first",
    }),
    answer: apiError(413, "body_too_large"),
  },
  {
    name: "PATCH evaluation: an unknown field",
    request: patch({ labelMap: null, colour: "red" }),
    answer: apiError(400, "invalid_request", "colour"),
  },
  {
    name: "PATCH evaluation: __proto__",
    request: patch('{"__proto__": {"scoreThreshold": 0.1}}'),
    answer: apiError(400, "invalid_request"),
  },
  { name: "PATCH evaluation: neither field", request: patch({}), answer: apiError(400, "invalid_request", "labelMap") },
  { name: "PATCH evaluation: not JSON", request: patch('{"labelMap": '), answer: apiError(400, "malformed_json") },
  {
    name: "PATCH evaluation: JSON labelled text/plain",
    request: (t) => ({
      method: "PATCH",
      path: evaluationPath(t),
      bytes: { contentType: "text/plain", body: Buffer.from('{"scoreThreshold":1}') },
    }),
    answer: apiError(415, "unsupported_media_type"),
  },
  {
    name: "PATCH evaluation: an id that is not a UUID",
    request: () => ({ method: "PATCH", path: "/api/v1/evaluations/not-a-uuid", json: { scoreThreshold: 1 } }),
    answer: apiError(400, "invalid_request", "id"),
  },
  {
    name: "PATCH evaluation: an evaluation that does not exist",
    request: () => ({ method: "PATCH", path: `/api/v1/evaluations/${UNKNOWN_UUID}`, json: { scoreThreshold: 1 } }),
    answer: apiError(404, "not_found"),
  },
  {
    name: "PATCH evaluation: null clears the threshold and keeps the label map",
    request: patch({ scoreThreshold: null }),
    answer: { status: 200, body: { scoreThreshold: null, labelMap: { relevant: "success" } } },
    writes: true,
    after: async (t) =>
      expect(await scoringOf(t)).toEqual({ labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: null }),
  },
  {
    name: "PATCH evaluation: null clears the label map",
    request: patch({ labelMap: null }),
    answer: { status: 200, body: { labelMap: null } },
    writes: true,
    after: async (t) => expect(await scoringOf(t)).toEqual({ labelMap: null, scoreThreshold: null }),
  },
];

/** PUT …/effect-policy: object entries with templates. */
export const effectPolicyCases: HostileCase[] = [
  {
    name: "effect policy: a template whose brace does not close",
    request: policy({ read_file: { class: "read_only", reads: "fs:{" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template with a blank name",
    request: policy({ read_file: { class: "read_only", reads: "fs:{}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template that is a number",
    request: policy({ read_file: { class: "read_only", reads: 5 } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template with NUL",
    request: policy({ write_file: { class: "sync_confirmed", writes: "fs:{path}\u0000" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: "effect policy: an unknown class in an object entry",
    request: policy({ read_file: { class: "teleport", reads: "fs:{path}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.class"),
  },
  {
    name: "effect policy: an unknown field in an object entry",
    request: policy({ read_file: { class: "read_only", colour: "red" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.colour"),
  },
  {
    name: "effect policy: an object entry without a class",
    request: policy({ read_file: { reads: "fs:{path}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.class"),
  },
  {
    name: "effect policy: an entry that is null",
    request: policy({ read_file: null }),
    answer: apiError(400, "invalid_request", "tools.read_file"),
  },
  {
    name: "effect policy: object entries with templates are stored",
    request: policy({
      send_money: "async_handle",
      read_file: { class: "read_only", reads: "fs:{path}" },
      write_file: { class: "sync_confirmed", writes: "fs:{path}" },
    }),
    answer: { status: 200, body: { version: 2 } },
    writes: true,
  },
];
