// A protocol's field limits, apart from the zod schemas that enforce them (lib/review/review-schemas.ts):
// the form states them from its first render without loading zod, which it fetches on submit.

export const PROTOCOL_LIMITS = { name: 200, benchmarkVersion: 100, scope: 4000, source: 2000, sources: 20 } as const;
