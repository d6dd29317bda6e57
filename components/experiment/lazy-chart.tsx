"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";
import { useNearViewport } from "@/components/ui/use-near-viewport";
import { chartHeight } from "./chart-height";
import type { ChartSpec } from "./chart-specs";

// The chart module (with Recharts) is fetched only when a chart comes near the viewport; until then
// the figure shows its caption and text alternative, rendered by the server.
const ExperimentChart = dynamic(() => import("./charts"), { ssr: false, loading: () => <Skeleton className="h-full w-full" /> });

export function LazyChart({ spec }: { spec: ChartSpec }) {
  const { ref, near } = useNearViewport<HTMLDivElement>();
  // The space the chart will take is kept from the start, so that nothing below it moves when it draws.
  return (
    <div ref={ref} style={{ height: chartHeight(spec) }}>
      {near ? <ExperimentChart spec={spec} /> : <Skeleton className="h-full w-full" />}
    </div>
  );
}
