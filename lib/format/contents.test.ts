import { describe, expect, it } from "vitest";
import { contentsLinks, currentGroup } from "./contents";

describe("contentsLinks", () => {
  it("lists the groups the page has in the bar's order, each going to its first section", () => {
    expect(contentsLinks({ Settings: ["policy", "sharing"], Headline: ["headline"], Statistics: ["statistics"], Runs: [] })).toEqual([
      { group: "Headline", target: "headline" },
      { group: "Statistics", target: "statistics" },
      { group: "Settings", target: "policy" },
    ]);
  });
});

describe("currentGroup", () => {
  const sections = [
    { group: "Headline", top: -900 },
    { group: "Results", top: -400 },
    { group: "Results", top: 100 },
    { group: "Statistics", top: 600 },
    { group: "Settings", top: 1400 },
  ] as const;

  it("is the group of the lowest section whose top has reached the line", () => {
    expect(currentGroup(sections, 112, false)).toBe("Results");
    expect(currentGroup(sections, 600, false)).toBe("Statistics");
  });

  it("is the first section's group above every section, and the last section's at the page's end", () => {
    expect(
      currentGroup(
        sections.map((s) => ({ ...s, top: s.top + 2000 })),
        112,
        false,
      ),
    ).toBe("Headline");
    expect(currentGroup(sections, 112, true)).toBe("Settings");
  });

  it("reads the sections in page order whatever order they come in, and is null without any", () => {
    expect(currentGroup([...sections].reverse(), 112, false)).toBe("Results");
    expect(currentGroup([], 112, false)).toBeNull();
  });
});
