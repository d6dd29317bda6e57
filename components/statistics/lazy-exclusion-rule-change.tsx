"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/** The rule-change form (with the rule's zod schemas) is fetched when the reader opens it (OpenOnRequest), not with the page. */
export const LazyExclusionRuleChange = dynamic(() => import("./exclusion-rule-change").then((m) => m.ExclusionRuleChange), {
  ssr: false,
  loading: () => <Skeleton className="h-64 w-full" />,
});
