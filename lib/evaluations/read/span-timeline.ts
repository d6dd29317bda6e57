// A run's OpenTelemetry spans as the run page's timeline rows (docs/otel.md), pure: each span under
// its parent (depth-first, siblings by start), placed by its start and length within the trace.
export interface StoredSpan {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The tool of an execute_tool or ai.toolCall span. */
  tool: string | null;
}

export interface SpanRow extends StoredSpan {
  depth: number;
  /** Since the run's start. */
  offsetMs: number;
  durationMs: number;
  /** The bar's place in the timeline, in percent of the trace's extent. */
  leftPercent: number;
  widthPercent: number;
}

export function spanTimeline(spans: readonly StoredSpan[], runStartMs: number): SpanRow[] {
  if (spans.length === 0) return [];
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, StoredSpan[]>();
  for (const span of spans) {
    // A span whose parent is not among them (not sent, or another service's) starts a tree of its own.
    const parent = span.parentSpanId !== null && ids.has(span.parentSpanId) ? span.parentSpanId : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startMs - b.startMs || a.name.localeCompare(b.name));
  const first = Math.min(...spans.map((s) => s.startMs));
  const extent = Math.max(...spans.map((s) => s.endMs)) - first || 1;
  const rows: SpanRow[] = [];
  const visit = (parent: string | null, depth: number) => {
    for (const span of children.get(parent) ?? []) {
      rows.push({
        ...span,
        depth,
        offsetMs: span.startMs - runStartMs,
        durationMs: Math.max(0, span.endMs - span.startMs),
        leftPercent: ((span.startMs - first) / extent) * 100,
        widthPercent: Math.max(0.5, ((span.endMs - span.startMs) / extent) * 100),
      });
      visit(span.spanId, depth + 1);
    }
  };
  visit(null, 0);
  return rows;
}
