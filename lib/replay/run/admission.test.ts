import { describe, expect, it } from "vitest";
import { AdmissionControl } from "./admission";

describe("AdmissionControl", () => {
  it("starts at the configured maximum and stays there while units are on time", () => {
    const control = new AdmissionControl(16);
    for (let i = 0; i < 100; i++) expect(control.recordOnTime()).toBe(16);
  });

  it("halves on a late unit, never below the minimum", () => {
    const control = new AdmissionControl(16);
    expect(control.recordLate()).toBe(8);
    expect(control.recordLate()).toBe(4);
    expect(control.recordLate()).toBe(4);
  });

  it("grows back by one per full round of on-time units, up to the maximum", () => {
    const control = new AdmissionControl(16);
    control.recordLate(); // 8
    for (let i = 0; i < 7; i++) expect(control.recordOnTime()).toBe(8);
    expect(control.recordOnTime()).toBe(9);
    for (let i = 0; i < 8; i++) expect(control.recordOnTime()).toBe(9);
    expect(control.recordOnTime()).toBe(10);
    for (let i = 0; i < 1000; i++) control.recordOnTime();
    expect(control.current).toBe(16);
  });

  it("restarts the round after a late unit", () => {
    const control = new AdmissionControl(16);
    control.recordLate(); // 8
    for (let i = 0; i < 7; i++) control.recordOnTime();
    expect(control.recordLate()).toBe(4);
    for (let i = 0; i < 3; i++) expect(control.recordOnTime()).toBe(4);
    expect(control.recordOnTime()).toBe(5);
  });

  it("keeps a maximum below the default minimum as its own floor", () => {
    const control = new AdmissionControl(2);
    expect(control.recordLate()).toBe(2);
  });
});
