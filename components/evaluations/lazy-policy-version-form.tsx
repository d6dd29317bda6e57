"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui/skeleton";

/** The new-version form (with the policy's zod schema) is fetched when the reader opens it (OpenOnRequest), not with the page. */
export const LazyPolicyVersionForm = dynamic(() => import("./policy-version-form").then((m) => m.PolicyVersionForm), {
  ssr: false,
  loading: () => <Skeleton className="h-48 w-full" />,
});
