import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash } from "./content-hash";

describe("canonicalJson", () => {
  it("sorts keys recursively, keeps array order, writes Dates as ISO and no whitespace", () => {
    const value = { b: [3, { z: 1, a: "x y" }, null], a: { d: new Date("2026-01-02T03:04:05.678Z"), c: true } };
    expect(canonicalJson(value)).toBe('{"a":{"c":true,"d":"2026-01-02T03:04:05.678Z"},"b":[3,{"a":"x y","z":1},null]}');
  });

  it("escapes strings and keys as JSON does", () => {
    expect(canonicalJson({ 'q"k': 'line\nbreak "quoted" \u00e9' })).toBe(JSON.stringify({ 'q"k': 'line\nbreak "quoted" \u00e9' }));
  });

  it("leaves out undefined members and writes undefined array items as null, like JSON.stringify", () => {
    const value = { a: undefined, b: [undefined, 1] };
    expect(canonicalJson(value)).toBe('{"b":[null,1]}');
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
  });

  it("refuses values JSON cannot hold instead of changing them", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, Symbol("s")]) {
      expect(() => canonicalJson({ nested: [bad] })).toThrow(TypeError);
    }
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe("contentHash", () => {
  const base = { kind: "run", run: { id: "r1", score: 1, labels: ["success", "failure"], evidence: { at: 12.5 } } };

  it("is the SHA-256 hex of the canonical JSON", () => {
    // SHA-256 of "{}".
    expect(contentHash({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    expect(contentHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not depend on key order", () => {
    const reordered = { run: { evidence: { at: 12.5 }, labels: ["success", "failure"], score: 1, id: "r1" }, kind: "run" };
    expect(contentHash(reordered)).toBe(contentHash(base));
  });

  it("changes with any value", () => {
    const variants = [
      { ...base, kind: "experiment" },
      { ...base, run: { ...base.run, score: 0 } },
      { ...base, run: { ...base.run, labels: ["failure", "success"] } }, // array order matters
      { ...base, run: { ...base.run, evidence: { at: 12.50001 } } },
      { ...base, run: { ...base.run, evidence: { at: "12.5" } } }, // type matters
      { ...base, run: { ...base.run, extra: null } },
    ];
    const hashes = new Set([contentHash(base), ...variants.map(contentHash)]);
    expect(hashes.size).toBe(variants.length + 1);
  });
});
