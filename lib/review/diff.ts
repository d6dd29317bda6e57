/** What changed between two versions of a cell (or a consensus): each differing key with both values. */
export function ledgerDiff(
  previous: Record<string, unknown> | null,
  next: Record<string, unknown>,
): { key: string; before: string; after: string }[] {
  const keys = [...new Set([...Object.keys(previous ?? {}), ...Object.keys(next)])].filter((k) => k !== "version").sort();
  const show = (v: unknown) => (v === undefined || v === null ? "—" : Array.isArray(v) ? v.join("; ") || "—" : String(v));
  return keys
    .filter((k) => show(previous?.[k]) !== show(next[k]))
    .map((key) => ({ key, before: show(previous?.[key]), after: show(next[key]) }));
}
