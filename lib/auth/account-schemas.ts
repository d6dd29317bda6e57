import { z } from "zod";
import { queryFlag } from "../http/input";
import { ROLES } from "./permissions";

/** Better Auth enforces the same bounds (lib/auth/auth.ts); the account forms validate with these schemas. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

const email = z.email("email must be an email address").trim().toLowerCase().max(254);
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`);
const name = z.string().trim().min(1, "name must not be empty").max(100);

/** A new account: the admin API, the first-run setup page and `npm run user:create` share it. */
export const newUserSchema = z.strictObject({
  email,
  password,
  name: name.optional(),
  role: z.enum(ROLES, `role must be one of ${ROLES.join(", ")}`),
});
export type NewUser = z.infer<typeof newUserSchema>;

/** A password change: the account page's form and Better Auth's own bounds. */
export const changePasswordSchema = z.strictObject({
  currentPassword: z.string().min(1, "current password must not be empty").max(MAX_PASSWORD_LENGTH),
  newPassword: password,
});

/** The first-run setup page creates an admin: no role to choose. */
export const firstAdminSchema = newUserSchema.omit({ role: true });

/** POST /api/v1/users/{id}/password: an admin sets a user's new password (same bounds as everywhere). */
export const resetPasswordSchema = z.strictObject({ password });

/** POST /api/v1/users/{id}/deactivate: an optional reason, kept with the account (the admin page shows it). */
export const deactivateUserSchema = z.strictObject({
  reason: z
    .string("reason must be text")
    .trim()
    .min(1, "reason must not be empty")
    .max(200, "reason must be at most 200 characters")
    .optional(),
});

export const setRoleSchema = z.strictObject({ role: z.enum(ROLES, `role must be one of ${ROLES.join(", ")}`) });

export const newApiKeySchema = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(64, "name must be at most 64 characters"),
  /** Admins may create a key for another user; everyone else only for themself. */
  userId: z.string().min(1).max(64).optional(),
});

export type NewApiKey = z.infer<typeof newApiKeySchema>;

export const pathIdSchema = z.strictObject({ id: z.string().min(1).max(64) });

/** GET /api/v1/api-keys: `?all=true` lists every user's keys (admins only). */
export const listApiKeysQuerySchema = z.strictObject({ all: queryFlag("all").default(false) });
