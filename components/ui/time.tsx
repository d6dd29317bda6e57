"use client";

import { useEffect, useState } from "react";
import { formatLocal, formatRelative, formatUtc } from "@/lib/format/time";

/**
 * A wall-clock time as the reader lives it: local date and time with "3 min ago", the exact UTC
 * time on hover (title). The server renders UTC (it does not know the reader's zone); the browser
 * then writes the local form.
 */
export function Time({ iso, relative = true, testId }: { iso: string; relative?: boolean; testId?: string }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    if (!relative) return;
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, [relative]);
  const utc = formatUtc(iso);
  return (
    <time dateTime={iso} title={`${utc} UTC`} data-testid={testId} className="whitespace-nowrap">
      {now === null ? (
        `${utc} UTC`
      ) : (
        <>
          {formatLocal(iso)}
          {relative ? <span className="text-muted-foreground"> ({formatRelative(iso, now)})</span> : null}
        </>
      )}
    </time>
  );
}
