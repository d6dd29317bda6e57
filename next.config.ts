import type { NextConfig } from "next";

// No usage data leaves the machine. `next build` reads this variable after loading this file;
// the npm scripts set it as well, for the commands that start before any config is read.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

const nextConfig: NextConfig = {
  poweredByHeader: false,
};

export default nextConfig;
