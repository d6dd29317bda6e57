// The web process's statements run as named prepared statements: PostgreSQL then keeps each one's
// plan on the connection, and after five runs plans it once for all (a generic plan) instead of on
// every run. The evaluation page's statements cost PostgreSQL more CPU in planning than in running, on
// the cores the web processes render on; named, about a third of it (docs/dashboard.md, "Serving rate").
import { createHash } from "node:crypto";

/**
 * A statement with more parameters than this runs unnamed (planned every time): its text varies with
 * the length of a list (`IN ($1, …, $n)`), and a connection keeps every statement it has prepared.
 */
export const MAX_PREPARED_PARAMETERS = 100;

/**
 * The name a statement is prepared under: a hash of its text (one text, one name, on every connection),
 * or "" (node-postgres's unnamed statement) past MAX_PREPARED_PARAMETERS.
 */
export function preparedStatementName(text: string, parameterCount: number): string {
  if (parameterCount > MAX_PREPARED_PARAMETERS) return "";
  return `bl_${createHash("sha1").update(text).digest("base64url")}`;
}
