// Test fixture: one process's share of a rate limit. Consumes one point `attempts` times from a
// limiter of `points` a minute on one key, in the database at argv[2], and prints how many passed.
import { RateLimiterRes } from "rate-limiter-flexible";
import { postgresRateLimiter } from "../db/rate-limiter";

const [databaseUrl, keyPrefix, points, attempts] = process.argv.slice(2);
const limiter = postgresRateLimiter(databaseUrl!, { keyPrefix: keyPrefix!, points: Number(points), durationSeconds: 60 });
let allowed = 0;
let refused = 0;
for (let i = 0; i < Number(attempts); i++) {
  try {
    await limiter.consume("203.0.113.7");
    allowed++;
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    refused++;
  }
}
console.log(JSON.stringify({ allowed, refused }));
process.exit(0);
