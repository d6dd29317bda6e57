import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// Prisma 6.19 with the JS engine: no engine binary is downloaded (docs/stack.md).
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL must be set for Prisma CLI commands");
    // A short idle timeout lets the CLI exit promptly instead of hanging on pooled connections.
    return new PrismaPg({ connectionString, idleTimeoutMillis: 50 });
  },
});
