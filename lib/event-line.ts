import { z } from "zod";

const eventLineSchema = z.looseObject({ event: z.string(), url: z.string().optional() });
export type EventLine = z.infer<typeof eventLineSchema>;

/**
 * Our processes announce what their parent waits for as one JSON line on stdout (`{"event":"listening","url":...}`,
 * `{"event":"ready",...}`). The event of such a line, or null for any other line.
 */
export function parseEventLine(line: string): EventLine | null {
  if (!line.startsWith("{")) return null;
  try {
    const parsed = eventLineSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
