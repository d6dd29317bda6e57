import { z } from "zod";
import { ingestBodySchema, runRecordSchema } from "./run-record-schema";

/** A scored run names its scoring time and endpoint label; an unscored one says why instead (runRecordSchema's refinement, which zod cannot write as JSON Schema). */
const SCORED_OR_UNSCORED = [
  { required: ["scoredAt", "endpointLabel"], not: { required: ["unscoredReason"] } },
  { required: ["unscoredReason"], not: { anyOf: [{ required: ["scoredAt"] }, { required: ["endpointLabel"] }] } },
];

/** The ingest body's JSON Schema (draft 2020-12), as callers write it (zod 4's z.toJSONSchema, input side). */
export function ingestJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ingestBodySchema, {
      io: "input",
      unrepresentable: "any",
      override: ({ zodSchema, jsonSchema }) => {
        if (zodSchema === runRecordSchema) jsonSchema.oneOf = SCORED_OR_UNSCORED;
      },
    }),
    title: "Boundary Lab evaluation ingest body",
    description:
      "POST /api/v1/evaluations/{id}/runs. A run gives scoredAt and endpointLabel, or (a run the harness never scored) unscoredReason instead. Also refused: times out of order (scored, ended or an effect requested before the run started; acknowledged or resolved before requested) and duplicate effectIds in a run (docs/evaluations.md).",
  };
}
