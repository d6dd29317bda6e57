/**
 * Who may do what: one table, the server's only source for it (pages hide what a role cannot do by
 * asking the same table). Roles are ordered from most to least power, but permissions are listed
 * per action rather than derived from the order, so that each grant is explicit.
 */
export const ROLES = ["admin", "editor", "reviewer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = {
  /** Experiments, evaluations, runs, summaries, open effects, the protocol matrix. */
  "results:read": ["admin", "editor", "reviewer", "viewer"],
  "experiment:run": ["admin", "editor"],
  "experiment:cancel": ["admin", "editor"],
  /** Create evaluations, ingest their runs, post resolutions, set their effect policy. */
  "evaluation:write": ["admin", "editor"],
  /** A reviewer's own codes; editors and admins too. */
  "review:code": ["admin", "editor", "reviewer"],
  "review:reconcile": ["admin", "editor"],
  /** Add, rename and retire protocols; write their completion arguments. */
  "protocol:write": ["admin", "editor"],
  "share:create": ["admin", "editor"],
  /** Every share link on the instance, and the kill switch. */
  "share:admin": ["admin"],
  /** Create users, set roles, and API keys for anyone. */
  "users:admin": ["admin"],
  /** One's own API keys and password. */
  "account:self": ["admin", "editor", "reviewer", "viewer"],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
