import { z } from "zod";
import { ingestBodySchema } from "./schemas";

/** The ingest body's JSON Schema (draft 2020-12), as callers write it (zod 4's z.toJSONSchema, input side). */
export function ingestJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ingestBodySchema, { io: "input", unrepresentable: "any" }),
    title: "Boundary Lab evaluation ingest body",
    description: "POST /api/v1/evaluations/{id}/runs. Also refused: times out of order (scored, ended or an effect requested before the run started; acknowledged or resolved before requested) and duplicate effectIds in a run (docs/evaluations.md).",
  };
}
