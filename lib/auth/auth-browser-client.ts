"use client";
// Better Auth's browser client: same origin, session cookie.
import { createAuthClient } from "better-auth/react";

export const authClient = createAuthClient();
