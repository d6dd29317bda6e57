import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { packedText, packTexts } from "./packed-texts";
import { poolOf } from "./prisma";
import { sqlTransaction } from "./sql-transaction";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
});
afterAll(async () => {
  await database?.drop();
});

describe("packTexts", () => {
  it("gives each text back whole from one bytea parameter: multi-byte characters, quotes, backslashes, an empty text", async () => {
    const texts = ['{"a":"é\\"q\\\\"}', "", "naïve 😀 — ∑", JSON.stringify({ spans: ["x\ty", "line\nbreak"] }), "last"];
    const rows = await sqlTransaction(
      poolOf(database.db),
      (tx) =>
        tx.$queryRaw`
        WITH packed AS (${packTexts(texts)})
        SELECT k, ${packedText("k")} AS text FROM packed, generate_series(1, ${texts.length}::int) AS k ORDER BY k`,
    );
    expect(
      z
        .array(z.object({ k: z.number(), text: z.string() }))
        .parse(rows)
        .map((r) => r.text),
    ).toEqual(texts);
  });
});
