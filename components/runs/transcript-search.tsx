"use client";

import { ChevronDown, ChevronUp } from "lucide-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/field";
import { findMatches, stepMatch } from "@/lib/search/text-matches";

const ALL = "transcript-match";
const CURRENT = "transcript-match-current";

/** The browser's CSS Custom Highlight registry, where it has one: marks ranges without touching the DOM React renders. */
function highlightRegistry(): { set(name: string, value: unknown): void; delete(name: string): void } | null {
  const css = globalThis.CSS as unknown as
    { highlights?: { set(name: string, value: unknown): void; delete(name: string): void } } | undefined;
  return css?.highlights && typeof (globalThis as { Highlight?: unknown }).Highlight === "function" ? css.highlights : null;
}

const makeHighlight = (ranges: Range[]) =>
  new (globalThis as unknown as { Highlight: new (...r: Range[]) => unknown }).Highlight(...ranges);

/**
 * A search inside the transcript below it: every occurrence of the text marked, the current one in another colour, scrolled
 * to and opened (a collapsed long text opens), stepped through with next and previous (Enter, Shift+Enter), "k of n".
 * Starts with the text the runs list was searched for.
 */
export function TranscriptSearch({ initial, children }: { initial: string; children: ReactNode }) {
  const [text, setText] = useState(initial);
  const [ranges, setRanges] = useState<Range[]>([]);
  const [current, setCurrent] = useState(0);
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const nodes: Text[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
    const found = findMatches(
      nodes.map((n) => n.data),
      text,
    ).map((m) => {
      const range = document.createRange();
      range.setStart(nodes[m.text]!, m.start);
      range.setEnd(nodes[m.text]!, m.end);
      return range;
    });
    setRanges(found);
    setCurrent(0);
  }, [text]);

  useEffect(() => {
    const registry = highlightRegistry();
    const root = container.current;
    root?.querySelectorAll("[data-search-current]").forEach((element) => element.removeAttribute("data-search-current"));
    const range = ranges[current];
    if (registry) {
      registry.set(ALL, makeHighlight(ranges));
      registry.set(CURRENT, makeHighlight(range ? [range] : []));
    }
    if (range) {
      const element = range.startContainer.parentElement;
      const details = element?.closest("details");
      if (details && !details.open) details.open = true;
      element?.setAttribute("data-search-current", "");
      element?.scrollIntoView({ block: "center" });
    }
    return () => {
      registry?.delete(ALL);
      registry?.delete(CURRENT);
    };
  }, [ranges, current]);

  const count = ranges.length;
  const step = (by: 1 | -1) => setCurrent((k) => stepMatch(k, count, by));
  return (
    <div className="space-y-3">
      <div className="sticky top-0 z-10 flex flex-wrap items-end gap-2 rounded-lg border border-border bg-card p-3" role="search">
        <div className="min-w-56 flex-1 space-y-1">
          <Label htmlFor="transcript-search">Find in this transcript</Label>
          <Input
            id="transcript-search"
            type="search"
            value={text}
            maxLength={200}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== "Enter") return;
              event.preventDefault();
              step(event.shiftKey ? -1 : 1);
            }}
          />
        </div>
        <p className="min-w-24 text-sm tabular-nums" role="status" aria-live="polite" data-testid="transcript-search-status">
          {text.trim() === "" ? "" : count === 0 ? "no match" : `${current + 1} of ${count}`}
        </p>
        <Button size="sm" onClick={() => step(-1)} disabled={count < 2} aria-label="Previous match">
          <ChevronUp aria-hidden="true" />
          Previous
        </Button>
        <Button size="sm" onClick={() => step(1)} disabled={count < 2} aria-label="Next match">
          <ChevronDown aria-hidden="true" />
          Next
        </Button>
      </div>
      <div ref={container}>{children}</div>
    </div>
  );
}
