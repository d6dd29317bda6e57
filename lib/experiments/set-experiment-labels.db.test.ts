import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { DomainError } from "../errors";
import { parseInput } from "../http/input";
import { replayConfigSchema } from "../replay/rules/config";
import { useTestDatabase } from "../testing/use-test-database";
import { experimentStatus } from "./progress";
import { EXPERIMENT_NAME_MAX, EXPERIMENT_NOTES_MAX, experimentLabelsPatchSchema } from "./experiment-schemas";
import { setExperimentLabels } from "./set-experiment-labels";

// Naming and annotating an experiment on a real PostgreSQL, through the PATCH body's own schema.
let db: Db;

useTestDatabase((database) => (db = database.db));

const patch = (body: unknown) => parseInput(experimentLabelsPatchSchema, body, "body");
const refusal = (body: unknown) => {
  try {
    patch(body);
    return null;
  } catch (error) {
    return error instanceof DomainError ? { kind: error.kind, field: error.field, message: error.message } : error;
  }
};

async function newExperiment() {
  const config = replayConfigSchema.parse({ delaysMs: [0], schedules: 1, repetitions: 1 });
  return (await db.experiment.create({ data: { state: "queued", config: config as unknown as Prisma.InputJsonValue } })).id;
}

describe("experiment labels", () => {
  it("sets a name and notes, keeps a field left out, clears one set to null, and shows them in the status", async () => {
    const id = await newExperiment();
    expect(await setExperimentLabels(db, id, patch({ name: "  delays 0 ms smoke  ", notes: "first try\nwith a newline" }))).toEqual({
      id,
      name: "delays 0 ms smoke",
      notes: "first try\nwith a newline",
    });
    expect(await setExperimentLabels(db, id, patch({ notes: "second try" }))).toEqual({
      id,
      name: "delays 0 ms smoke",
      notes: "second try",
    });
    expect(await experimentStatus(db, id)).toMatchObject({ id, name: "delays 0 ms smoke", notes: "second try", state: "queued" });
    expect(await setExperimentLabels(db, id, patch({ name: null }))).toEqual({ id, name: null, notes: "second try" });
    expect(await setExperimentLabels(db, id, patch({ name: "back", notes: null }))).toEqual({ id, name: "back", notes: null });
    // An empty patch writes nothing and answers the labels as they are.
    expect(await setExperimentLabels(db, id, patch({}))).toEqual({ id, name: "back", notes: null });
    expect(await experimentStatus(db, id)).toMatchObject({ name: "back", notes: null });
  });

  it("answers null for an unknown experiment, writing nothing", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await setExperimentLabels(db, unknown, patch({ name: "x" }))).toBeNull();
    expect(await setExperimentLabels(db, unknown, patch({}))).toBeNull();
  });

  it("refuses what the limits refuse, naming the field", () => {
    expect(refusal({ name: "" })).toMatchObject({ kind: "invalid", field: "name" });
    expect(refusal({ name: "   " })).toMatchObject({ kind: "invalid", field: "name", message: "body.name: name must not be empty" });
    expect(refusal({ name: "n".repeat(EXPERIMENT_NAME_MAX + 1) })).toMatchObject({
      kind: "invalid",
      field: "name",
      message: `body.name: name must be at most ${EXPERIMENT_NAME_MAX} characters`,
    });
    expect(refusal({ notes: "n".repeat(EXPERIMENT_NOTES_MAX + 1) })).toMatchObject({
      kind: "invalid",
      field: "notes",
      message: `body.notes: notes must be at most ${EXPERIMENT_NOTES_MAX} characters`,
    });
    expect(refusal({ name: 7 })).toMatchObject({ kind: "invalid", field: "name" });
    expect(refusal({ title: "x" })).toMatchObject({ kind: "invalid", field: "title" });
    expect(refusal({ name: "n".repeat(EXPERIMENT_NAME_MAX), notes: "n".repeat(EXPERIMENT_NOTES_MAX) })).toBeNull();
  });
});
