import { describe, expect, it } from "vitest";
import { MAX_PREPARED_PARAMETERS, preparedStatementName } from "./prepared-statements";

describe("preparedStatementName", () => {
  it("names one text alike every time and two texts apart, within PostgreSQL's 63-byte names", () => {
    const a = preparedStatementName("SELECT 1 WHERE $1::int > 0", 1);
    expect(a).toBe(preparedStatementName("SELECT 1 WHERE $1::int > 0", 1));
    expect(a).not.toBe(preparedStatementName("SELECT 2 WHERE $1::int > 0", 1));
    expect(a).toMatch(/^bl_[A-Za-z0-9_-]+$/);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63);
  });

  it("leaves a statement of many parameters unnamed (its text varies with a list's length)", () => {
    expect(preparedStatementName("SELECT $1", MAX_PREPARED_PARAMETERS)).not.toBe("");
    expect(preparedStatementName("SELECT $1", MAX_PREPARED_PARAMETERS + 1)).toBe("");
  });
});
