// Harness designs a run may declare (an importer declares it for the harness whose logs it reads): a
// statement of why that harness's own word about its tools suffices. A final run that rests on the
// harness's word rests on this design, and the pages say so in its words. Pure.

export const HARNESS_DESIGNS = {
  agentdojo: {
    harness: "AgentDojo",
    statement:
      "AgentDojo runs its tools in-process and synchronously, on a fresh copy of the task's environment: a call has taken effect when it returns, and no task sees another's state.",
  },
} as const;

export type HarnessDesign = keyof typeof HARNESS_DESIGNS;
export const HARNESS_DESIGN_KEYS = Object.keys(HARNESS_DESIGNS) as [HarnessDesign, ...HarnessDesign[]];

export const isHarnessDesign = (key: string): key is HarnessDesign => Object.hasOwn(HARNESS_DESIGNS, key);
