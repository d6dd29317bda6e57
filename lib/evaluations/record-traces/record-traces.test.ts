import { describe, expect, it } from "vitest";
import { classifyTool } from "../policy";
import { stateChangingTools } from "./record-traces";

describe("stateChangingTools", () => {
  it("keeps the tools whose class changes state or may (unclassified, as the audit counts them), sorted; read-only ones do not", () => {
    const policy = {
      tools: { send_money: "sync_confirmed", "deploy_*": "async_handle", email: "external", read_file: "read_only" },
    } as const;
    const classOf = (tool: string) => classifyTool(policy, tool);
    expect(stateChangingTools(["read_file", "send_money", "email", "deploy_prod", "bash"], classOf)).toEqual([
      "bash",
      "deploy_prod",
      "email",
      "send_money",
    ]);
    expect(stateChangingTools(["read_file", "bash"], classOf)).toEqual(["bash"]);
    expect(stateChangingTools(["read_file"], classOf)).toEqual([]);
  });
});
