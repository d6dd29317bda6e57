import { describe, expect, it } from "vitest";
import { mergedUnits, recomputedUnitRows, unitsJoined } from "./units";

const on = (entries: Record<string, string[]>) => new Map(Object.entries(entries).map(([surface, units]) => [surface, new Set(units)]));

describe("units a batch connects", () => {
  it("merge transitively into the smallest unit: 12 and 30 through s1, 30 and 7 through s2", () => {
    const unitsOn = on({ s1: ["12", "30"], s2: ["30", "7"] });
    const stored = new Map([
      ["12", { runs: 3, surfaces: ["s0"] }],
      ["30", { runs: 2, surfaces: ["s1"] }],
    ]);
    expect(unitsJoined(unitsOn)).toEqual(["12", "30", "7"]);
    const merge = mergedUnits(unitsOn, stored, new Set(["7"]));
    expect(Object.fromEntries(merge.components)).toEqual({
      "7": { unit: "7", inherited: "none" },
      "12": { unit: "7", inherited: "none" },
      "30": { unit: "7", inherited: "none" },
    });
    // 3 + 2 stored runs and the new run 7; every surface that connects any of them.
    expect(merge.rows).toEqual([{ unit: "7", runs: 6, surfaces: ["s0", "s1", "s2"] }]);
    expect(merge.relabel).toEqual([
      { old: "12", unit: "7" },
      { old: "30", unit: "7" },
    ]);
    expect(merge.gone).toEqual(["12", "30"]);
  });

  it("a new run joining a stored unit relabels nothing: it is written with its unit", () => {
    const merge = mergedUnits(on({ s1: ["12", "40"] }), new Map([["12", { runs: 3, surfaces: ["s1"] }]]), new Set(["40"]));
    expect(merge.rows).toEqual([{ unit: "12", runs: 4, surfaces: ["s1"] }]);
    expect(merge.components.get("40")!.unit).toBe("12");
    expect([merge.relabel, merge.gone]).toEqual([[], []]);
  });

  it("a surface already connecting its unit, with no merge, changes no row", () => {
    const merge = mergedUnits(on({ s1: ["12"] }), new Map([["12", { runs: 3, surfaces: ["s1"] }]]), new Set());
    expect([merge.rows, merge.relabel, merge.gone]).toEqual([[], [], []]);
  });

  it("a stored unit of one run (no row) counts as one", () => {
    const merge = mergedUnits(on({ s1: ["9", "10"] }), new Map(), new Set(["10"]));
    expect(merge.rows).toEqual([{ unit: "9", runs: 2, surfaces: ["s1"] }]);
    expect([merge.relabel, merge.gone]).toEqual([[], []]);
  });
});

describe("units after a recompute", () => {
  it("are the units of more than one run, with the surfaces of their runs' links", () => {
    const units = [
      { id: "1", unit: "1" },
      { id: "2", unit: "1" },
      { id: "3", unit: "3" },
      { id: "4", unit: "4" },
      { id: "5", unit: "4" },
    ];
    const links = [
      { run_id: "1", surface: "b" },
      { run_id: "2", surface: "b" },
      { run_id: "2", surface: "a" },
      { run_id: "4", surface: "c" },
    ];
    expect(recomputedUnitRows(units, links)).toEqual([
      { unit: "1", runs: 2, surfaces: ["a", "b"] },
      { unit: "4", runs: 2, surfaces: ["c"] },
    ]);
  });
});
