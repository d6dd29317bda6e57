"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";
import { useNearViewport } from "@/components/ui/use-near-viewport";
import type { ChartSpec } from "./chart-specs";

// The chart module (with Recharts) is fetched only when a chart comes near the viewport; until then
// the figure shows its caption and text alternative, rendered by the server.
const ExperimentChart = dynamic(() => import("./charts"), { ssr: false, loading: () => <Skeleton className="h-[300px] w-full" /> });

export function LazyChart({ spec }: { spec: ChartSpec }) {
  const { ref, near } = useNearViewport<HTMLDivElement>();
  return (
    <div ref={ref} className="min-h-[300px]">
      {near ? <ExperimentChart spec={spec} /> : <Skeleton className="h-[300px] w-full" />}
    </div>
  );
}
