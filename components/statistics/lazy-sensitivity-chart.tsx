"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";
import { useNearViewport } from "@/components/ui/use-near-viewport";
import type { SensitivityRowAnswer } from "@/lib/statistics/answer-schema";

// The chart module (with Recharts) is fetched only when the chart comes near the viewport, as the
// experiment's charts are (components/experiment/lazy-chart.tsx).
const SensitivityChart = dynamic(() => import("./sensitivity-chart"), {
  ssr: false,
  loading: () => <Skeleton className="h-[280px] w-full" />,
});

export function LazySensitivityChart({ rows, threshold }: { rows: SensitivityRowAnswer[]; threshold?: number }) {
  const { ref, near } = useNearViewport<HTMLDivElement>();
  return (
    <div ref={ref} className="min-h-[280px]">
      {near ? <SensitivityChart rows={rows} threshold={threshold} /> : <Skeleton className="h-[280px] w-full" />}
    </div>
  );
}
