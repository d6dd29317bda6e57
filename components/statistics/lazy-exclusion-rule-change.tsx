"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/** The rule-change form (with the rule's zod schemas) is fetched after the page loads: it sits at the foot of the statistics, and the evaluation page keeps within its 200 KB first-load budget. */
export const LazyExclusionRuleChange = dynamic(() => import("./exclusion-rule-change").then((m) => m.ExclusionRuleChange), {
  ssr: false,
  loading: () => <Skeleton className="h-64 w-full" />,
});
