"use client";

import { useEffect, useState } from "react";
import { formatLocal, formatRelative, formatUtc, formatUtcShort } from "@/lib/format/time";

// The one way a wall-clock time is shown. Server rendering vs the reader's zone: the server (and the
// browser's first render, so hydration matches) writes the time in UTC, saying so; after mount the
// browser writes it in the reader's zone, in the same fixed shape ("6 Dec 2026, 22:52").

/** True once mounted in the browser, where the reader's time zone is known. */
function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

/** A time as text (an <option> holds text only): UTC, saying so, until mounted, then the reader's local time. */
export function useLocalTimeText(): (iso: string) => string {
  const mounted = useMounted();
  return (iso) => (mounted ? formatLocal(iso) : formatUtcShort(iso));
}

/**
 * A wall-clock time as the reader lives it: local date and time with "3 min ago", the exact UTC
 * instant on hover (title).
 */
export function Time({ iso, relative = true, testId }: { iso: string; relative?: boolean; testId?: string }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    if (!relative) return;
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, [relative]);
  return (
    <time dateTime={iso} title={`${formatUtc(iso)} UTC`} data-testid={testId} className="whitespace-nowrap">
      {now === null ? (
        formatUtcShort(iso)
      ) : (
        <>
          {formatLocal(iso)}
          {relative ? <span className="text-muted-foreground"> ({formatRelative(iso, now)})</span> : null}
        </>
      )}
    </time>
  );
}

/** An <option> whose text ends with a time, written as Time writes it. */
export function TimeOption({ value, label, iso }: { value: string; label: string; iso: string }) {
  const timeText = useLocalTimeText();
  return <option value={value}>{`${label} · ${timeText(iso)}`}</option>;
}
