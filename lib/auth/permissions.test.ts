import { describe, expect, it } from "vitest";
import { can, isRole, PERMISSIONS, ROLES } from "./permissions";

describe("permissions", () => {
  it("grants exactly the issue's roles", () => {
    const matrix = Object.fromEntries(
      ROLES.map((role) => [role, Object.keys(PERMISSIONS).filter((p) => can(role, p as keyof typeof PERMISSIONS))]),
    );
    expect(matrix).toEqual({
      admin: [
        "results:read",
        "experiment:run",
        "experiment:cancel",
        "evaluation:write",
        "review:code",
        "review:reconcile",
        "protocol:write",
        "share:create",
        "share:admin",
        "users:admin",
        "account:self",
      ],
      editor: [
        "results:read",
        "experiment:run",
        "experiment:cancel",
        "evaluation:write",
        "review:code",
        "review:reconcile",
        "protocol:write",
        "share:create",
        "account:self",
      ],
      reviewer: ["results:read", "review:code", "account:self"],
      viewer: ["results:read", "account:self"],
    });
  });

  it("recognises roles and nothing else", () => {
    expect(ROLES.every(isRole)).toBe(true);
    expect([undefined, null, "", "user", "Admin", 1].some(isRole)).toBe(false);
  });
});
