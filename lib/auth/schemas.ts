import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "./auth";
import { ROLES } from "./permissions";

const email = z.email("email must be an email address").trim().toLowerCase().max(254);
const password = z.string().min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`).max(256, "password must be at most 256 characters");
const name = z.string().trim().min(1, "name must not be empty").max(100);

/** A new account: the admin API, the first-run setup page and `npm run user:create` share it. */
export const newUserSchema = z.strictObject({ email, password, name: name.optional(), role: z.enum(ROLES, `role must be one of ${ROLES.join(", ")}`) });
export type NewUser = z.infer<typeof newUserSchema>;

/** The first-run setup page creates an admin: no role to choose. */
export const firstAdminSchema = newUserSchema.omit({ role: true });

export const setRoleSchema = z.strictObject({ role: z.enum(ROLES, `role must be one of ${ROLES.join(", ")}`) });

export const newApiKeySchema = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(64, "name must be at most 64 characters"),
  /** Admins may create a key for another user; everyone else only for themself. */
  userId: z.string().min(1).max(64).optional(),
});

export const pathIdSchema = z.strictObject({ id: z.string().min(1).max(64) });
