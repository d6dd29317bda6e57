import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "../replay/rules/config";
import { experimentLabelsShape } from "../experiments/experiment-schemas";
import { z } from "zod";
import { createProtocolSchema } from "../review/review-schemas";
import { fieldErrors, serverFieldError } from "./field-errors";

const FIELDS = {
  delaysMs: { label: "Delays (ms)", allowed: "whole numbers from 0 to 10000, comma-separated", custom: "each delay may appear only once" },
  schedules: { label: "Schedules", allowed: "a whole number from 1 to 100" },
  repetitions: { label: "Repetitions", allowed: "a whole number from 1 to 1000" },
  finalityPolicies: { label: "Finality policies" },
};

describe("fieldErrors", () => {
  it("names each field as the form labels it and says what is allowed, never zod's internal names", () => {
    const input = { delaysMs: [0, 25, "soon"], schedules: null, repetitions: 0, finalityPolicies: [] };
    const errors = fieldErrors(replayConfigSchema.safeParse(input).error!.issues, input, FIELDS);
    expect(errors).toEqual({
      delaysMs: "Delays (ms): the third value (“soon”) is not a number; enter whole numbers from 0 to 10000, comma-separated",
      schedules: "Schedules is required; enter a whole number from 1 to 100",
      repetitions: "Repetitions must be at least 1; enter a whole number from 1 to 1000",
      finalityPolicies: "Finality policies: choose at least 1",
    });
    for (const message of Object.values(errors)) expect(message).not.toMatch(/delaysMs|Invalid input|expected/);
  });

  it("says a repeated delay and a fraction in words", () => {
    const input = { delaysMs: [25, 25], schedules: 1.5 };
    expect(fieldErrors(replayConfigSchema.safeParse(input).error!.issues, input, FIELDS)).toEqual({
      delaysMs: "Delays (ms): each delay may appear only once",
      schedules: "Schedules must be a whole number; enter a whole number from 1 to 100",
    });
  });

  it("never repeats a refinement's internal field name after the label", () => {
    const input = { name: "Mine", sources: ["https://example.org/a", "ftp://example.org/b"] };
    const errors = fieldErrors(createProtocolSchema.safeParse(input).error!.issues, input, {
      name: { label: "Name" },
      sources: { label: "Source links", allowed: "one http(s) URL per line" },
    });
    expect(errors).toEqual({ sources: "Source links: the second value (“ftp://example.org/b”): each source must be an http(s) URL" });
    expect(
      serverFieldError("sources.1", "body.sources.1: sources: each source must be an http(s) URL", { sources: { label: "Source links" } }),
    ).toEqual({
      key: "sources",
      message: "Source links: the second value: each source must be an http(s) URL",
    });
  });

  it("counts the characters of a text that is too long", () => {
    const schema = z.object(experimentLabelsShape);
    const input = { notes: "x".repeat(4001) };
    expect(fieldErrors(schema.safeParse(input).error!.issues, input, { notes: { label: "Notes" } })).toEqual({
      notes: "Notes must be at most 4,000 characters (it has 4,001)",
    });
  });

  it("puts a server's field name back into the form's words", () => {
    expect(serverFieldError("delaysMs.1", "delaysMs.1: must be at least 0", FIELDS)).toEqual({
      key: "delaysMs",
      message: "Delays (ms): the second value: must be at least 0",
    });
    expect(serverFieldError(undefined, "the server could not be reached", FIELDS)).toEqual({
      key: "form",
      message: "the server could not be reached",
    });
    // as the API words it: the request part before the field
    expect(serverFieldError("delaysMs.1", "body.delaysMs.1: must be at least 0", FIELDS)).toEqual({
      key: "delaysMs",
      message: "Delays (ms): the second value: must be at least 0",
    });
  });
});
