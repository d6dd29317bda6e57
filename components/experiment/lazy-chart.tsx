"use client";

import dynamic from "next/dynamic";
import { useEffect, useRef, useState } from "react";
import { Skeleton } from "@/components/ui/skeleton";
import type { ChartSpec } from "./chart-specs";

// The chart module (with Recharts) is fetched only when a chart comes near the viewport; until then
// the figure shows its caption and text alternative, rendered by the server.
const ExperimentChart = dynamic(() => import("./charts"), { ssr: false, loading: () => <Skeleton className="h-[300px] w-full" /> });

export function LazyChart({ spec }: { spec: ChartSpec }) {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: "300px" });
    observer.observe(element);
    return () => observer.disconnect();
  }, [near]);
  return (
    <div ref={ref} className="min-h-[300px]">
      {near ? <ExperimentChart spec={spec} /> : <Skeleton className="h-[300px] w-full" />}
    </div>
  );
}
