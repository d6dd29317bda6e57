"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/** The new-version form (with the policy's zod schema) is fetched after the page loads: it sits below the fold, and the page keeps within its 200 KB first-load budget. */
export const LazyPolicyVersionForm = dynamic(() => import("./policy-version-form").then((m) => m.PolicyVersionForm), {
  ssr: false,
  loading: () => <Skeleton className="h-48 w-full" />,
});
