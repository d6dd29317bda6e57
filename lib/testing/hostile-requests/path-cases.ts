// Paths no route serves and methods a route lacks: answered with the API's JSON.
import { RECORDED_RUN, evaluationPath, runPath, apiError, type HostileCase } from "./requests";

/** Paths no route serves and methods a route lacks: the API's JSON. */
export const pathCases: HostileCase[] = [
  {
    name: "GET an /api/ path no route serves",
    request: () => ({ method: "GET", path: "/api/v1/no/such/thing" }),
    answer: { ...apiError(404, "not_found"), contentType: "application/json" },
  },
  {
    name: "POST an /api/ path no route serves",
    request: () => ({ method: "POST", path: "/api/v2/evaluations", json: {} }),
    answer: { ...apiError(404, "not_found"), contentType: "application/json" },
  },
  {
    name: "DELETE a run's score",
    request: (t) => ({ method: "DELETE", path: `${runPath(t)}/score` }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "GET a run's events",
    request: (t) => ({ method: "GET", path: `${runPath(t)}/events` }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "PATCH a recorder",
    request: (t) => ({ method: "PATCH", path: `${runPath(t, RECORDED_RUN)}/recorders/recorder-1`, json: {} }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "PUT an evaluation",
    request: (t) => ({ method: "PUT", path: evaluationPath(t), json: { scoreThreshold: 1 } }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "GET the OTLP receiver",
    request: () => ({ method: "GET", path: "/api/otel/v1/traces" }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
];
