// `npm run user:create -- --email E --password P --role admin [--name N]`
// `npm run apikey:create -- --email E [--name N]` prints a new API key for that user (shown once).
// Both use the product's database: the server at DATABASE_URL, or the embedded one (shared with a
// running `npm start`). Exit codes: 0 done, 1 refused (e.g. the email is taken), 2 invalid flags.
import { parseArgs } from "node:util";
import { z } from "zod";
import { createAccount, createApiKey } from "../lib/auth/accounts";
import { createAuth } from "../lib/auth/auth";
import { newUserSchema } from "../lib/auth/account-schemas";
import { openDatabase } from "../lib/db/database";
import { createPrisma } from "../lib/db/prisma";
import { readServerEnv } from "../lib/env";
import { DomainError } from "../lib/errors";
import { parseInput } from "../lib/http/input";

const command = process.argv[2];
const apiKeyFlagsSchema = z.strictObject({
  email: z.email("email must be an email address").trim().toLowerCase(),
  name: z.string().trim().min(1).max(64).default("script"),
});

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(3),
      strict: true,
      options: { email: { type: "string" }, password: { type: "string" }, role: { type: "string" }, name: { type: "string" } },
    }));
  } catch (error) {
    console.error(`${command}: ${(error as Error).message}`);
    return 2;
  }
  let input;
  try {
    input = command === "user:create" ? parseInput(newUserSchema, values, "body") : parseInput(apiKeyFlagsSchema, values, "body");
  } catch (error) {
    console.error(`${command}: --${(error as DomainError).message.replace(/^body\./, "")}`);
    return 2;
  }
  const database = await openDatabase((line) => console.error(`${command}: ${line}`));
  const db = createPrisma(database.url, 2);
  try {
    const auth = createAuth(db, readServerEnv(), database.url);
    if ("password" in input) {
      const user = await createAccount(auth, input);
      console.log(`created ${user.role} ${user.email} (id ${user.id})`);
    } else {
      const user = await db.user.findUnique({ where: { email: input.email } });
      if (!user) throw new DomainError("not_found", "not_found", `email: no account with ${input.email}`);
      const { key } = await createApiKey(auth, user.id, input.name);
      // Only the key on stdout, so that `KEY=$(npm run -s apikey:create -- --email E)` works.
      console.error(`${command}: API key "${input.name}" for ${user.email} (${user.role}); it is shown once and stored hashed`);
      console.log(key);
    }
    return 0;
  } catch (error) {
    if (error instanceof DomainError) {
      console.error(`${command}: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await db.$disconnect();
    await database.close();
  }
}

if (command !== "user:create" && command !== "apikey:create") {
  console.error("usage: account-cli.ts user:create|apikey:create --email E ...");
  process.exitCode = 2;
} else {
  // An explicit exit: the embedded PostgreSQL's shutdown otherwise ends the process with code 0.
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`${command}: ${(error as Error).stack ?? String(error)}`);
      process.exit(1);
    },
  );
}
