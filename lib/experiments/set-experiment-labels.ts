import type { Db } from "../db/prisma";
import type { ExperimentLabelsPatch } from "./experiment-schemas";

export interface ExperimentLabels {
  id: string;
  name: string | null;
  notes: string | null;
}

/**
 * Renames or annotates an experiment: a field given (null clears it) is written, one left out is
 * kept. Returns the labels as stored, or null for an unknown experiment. The caller checks
 * experiment:run and parses the patch with experimentLabelsPatchSchema (limits, trimming).
 */
export async function setExperimentLabels(db: Db, experimentId: string, patch: ExperimentLabelsPatch): Promise<ExperimentLabels | null> {
  const data = {
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.notes !== undefined && { notes: patch.notes }),
  };
  const select = { id: true, name: true, notes: true } as const;
  // updateMany: an unknown id is a count of 0, not an exception to translate.
  if (Object.keys(data).length > 0 && (await db.experiment.updateMany({ where: { id: experimentId }, data })).count === 0) return null;
  return db.experiment.findUnique({ where: { id: experimentId }, select });
}
