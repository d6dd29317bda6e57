// Changing how an evaluation reads scores sent without a success/failure label (its threshold and label map).
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { notFound } from "../../errors";
import { getEvaluation } from "../read/get-evaluation";
import type { EvaluationDetail } from "../read/read-boundary";
import type { UpdateEvaluationScoringBody } from "../evaluation-requests";

/** Sets how the evaluation reads scores sent without a success/failure label (PATCH /api/v1/evaluations/{id}); 404 for an unknown one. */
export async function updateEvaluationScoring(
  db: SqlClient,
  evaluationId: string,
  body: UpdateEvaluationScoringBody,
): Promise<EvaluationDetail> {
  const updated = await db.$queryRaw`
    UPDATE evaluations
       SET score_threshold = CASE WHEN ${body.scoreThreshold !== undefined} THEN ${body.scoreThreshold ?? null}::float8 ELSE score_threshold END,
           label_map = CASE WHEN ${body.labelMap !== undefined} THEN ${body.labelMap === undefined || body.labelMap === null ? null : JSON.stringify(body.labelMap)}::jsonb ELSE label_map END
     WHERE id = ${evaluationId}::uuid RETURNING id`;
  if (z.array(z.unknown()).parse(updated).length === 0) throw notFound(`evaluation ${evaluationId}`);
  return (await getEvaluation(db, evaluationId))!;
}
