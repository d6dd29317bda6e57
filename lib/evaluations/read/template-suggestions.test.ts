import { describe, expect, it } from "vitest";
import { argumentTemplate, suggestTemplate } from "./template-suggestions";

describe("surface templates suggested from argument names", () => {
  it("come from a name that looks like a path, a URL or an id, in any case style", () => {
    expect(argumentTemplate("path")).toBe("fs:{path}");
    expect(argumentTemplate("file_path")).toBe("fs:{file_path}");
    expect(argumentTemplate("targetDirectory")).toBe("fs:{targetDirectory}");
    expect(argumentTemplate("uri")).toBe("url:{uri}");
    expect(argumentTemplate("account")).toBe("account:{account}");
    expect(argumentTemplate("recipientId")).toBe("recipientid:{recipientId}");
    expect(argumentTemplate("content")).toBeNull();
    expect(argumentTemplate("amount")).toBeNull();
    // A name a template cannot hold.
    expect(argumentTemplate("{path}")).toBeNull();
  });

  it("read or write as MCP's annotations say, else as the tool's class does", () => {
    expect(suggestTemplate("read_text_file", ["path"], "unclassified", { readOnlyHint: true })).toEqual({
      tool: "read_text_file",
      op: "reads",
      template: "fs:{path}",
      reason: "argument path looks like it names state; annotated readOnlyHint",
    });
    expect(suggestTemplate("write_file", ["content", "path"], "unclassified", { destructiveHint: true })).toMatchObject({
      op: "writes",
      template: "fs:{path}",
    });
    expect(suggestTemplate("get_balance", ["account"], "read_only", undefined)).toMatchObject({
      op: "reads",
      reason: expect.stringContaining("classed read_only"),
    });
    expect(suggestTemplate("send_money", ["recipient", "amount", "account"], "async_handle", undefined)).toMatchObject({
      op: "writes",
      template: "account:{account}",
    });
    expect(suggestTemplate("calculate", ["expression"], "read_only", undefined)).toBeNull();
  });
});
