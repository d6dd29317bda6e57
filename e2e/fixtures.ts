// Signed-in browser contexts and API clients for each role (accounts from e2e/serve.ts).
import { existsSync } from "node:fs";
import path from "node:path";
import { expect, request, test as base, type APIRequestContext } from "@playwright/test";
import type { Role } from "../lib/auth/permissions";
import { accounts, bearer, PASSWORD } from "./accounts";

export const BASE_URL = `http://127.0.0.1:${process.env.E2E_PORT ?? 3107}`;

/**
 * A saved signed-in state for the role, made once per stack (serve.ts clears .e2e/ at start): every
 * sign-in counts against the per-address limit of 10 a minute, so the tests sign each role in once.
 */
export async function storageStateFor(role: Role): Promise<string> {
  const file = path.resolve(`.e2e/${role}.state.json`);
  if (existsSync(file)) return file;
  const context = await request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL } });
  const response = await context.post("/api/auth/sign-in/email", { data: { email: accounts().users[role].email, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(200);
  await context.storageState({ path: file });
  await context.dispose();
  return file;
}

/** An API client holding the role's API key. */
export function apiAs(role: Role): Promise<APIRequestContext> {
  return request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: bearer(accounts().users[role].apiKey) });
}

export const test = base.extend<{ editorApi: APIRequestContext }>({
  editorApi: async ({}, use) => {
    const api = await apiAs("editor");
    await use(api);
    await api.dispose();
  },
});
export { expect };
